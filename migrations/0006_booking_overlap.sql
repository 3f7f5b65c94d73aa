-- The last line of defence: two confirmed bookings never overlap in one room, whatever the code above
-- does. A write that would make them fails its transaction. Touching ends are fine ([start, end)).
CREATE TRIGGER `bookings_no_overlap_insert` BEFORE INSERT ON `bookings`
WHEN NEW.`status` = 'confirmed' AND EXISTS (
  SELECT 1 FROM `bookings` AS `b`
  WHERE `b`.`room_id` = NEW.`room_id` AND `b`.`status` = 'confirmed' AND `b`.`id` <> NEW.`id`
    AND `b`.`start_at` < NEW.`end_at` AND `b`.`end_at` > NEW.`start_at`
)
BEGIN
  SELECT RAISE(ABORT, 'RFL_BOOKING_OVERLAP: two confirmed bookings would overlap in one room');
END;
--> statement-breakpoint
CREATE TRIGGER `bookings_no_overlap_update` BEFORE UPDATE OF `room_id`, `start_at`, `end_at`, `status` ON `bookings`
WHEN NEW.`status` = 'confirmed' AND EXISTS (
  SELECT 1 FROM `bookings` AS `b`
  WHERE `b`.`room_id` = NEW.`room_id` AND `b`.`status` = 'confirmed' AND `b`.`id` <> NEW.`id`
    AND `b`.`start_at` < NEW.`end_at` AND `b`.`end_at` > NEW.`start_at`
)
BEGIN
  SELECT RAISE(ABORT, 'RFL_BOOKING_OVERLAP: two confirmed bookings would overlap in one room');
END;
