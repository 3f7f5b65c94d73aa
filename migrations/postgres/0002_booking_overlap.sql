-- The last line of defence: two confirmed bookings never overlap in one room, whatever the code above
-- does (an exclusion constraint: a concurrent overlapping write waits for the other to commit, then
-- fails). Touching ends are fine: int8range is [start, end).
CREATE EXTENSION IF NOT EXISTS btree_gist;
--> statement-breakpoint
ALTER TABLE "bookings" ADD CONSTRAINT "bookings_no_overlap"
  EXCLUDE USING gist ("room_id" WITH =, int8range("start_at", "end_at") WITH &&)
  WHERE ("status" = 'confirmed');
