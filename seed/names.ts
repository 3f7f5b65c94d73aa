// Pools of believable names. Each name is a customer account, so the same band or client keeps
// one customer id across all its bookings.

export type PartyKind = 'band' | 'artist' | 'student' | 'client' | 'podcast' | 'choir' | 'ensemble';

// Students are many: a few hundred first-name-and-initial pairs, so lessons rarely share a pupil
// by accident.
function students(): string[] {
  const first = ['Maya', 'Leo', 'Aisha', 'Oscar', 'Freya', 'Noah', 'Zara', 'Ethan', 'Ruby', 'Arjun',
    'Chloe', 'Max', 'Evie', 'Yusuf', 'Lily', 'Theo', 'Sofia', 'Jack', 'Amelie', 'Reuben', 'Grace',
    'Finn', 'Nina', 'Alfie', 'Ivy', 'Sebastian', 'Poppy', 'Kai', 'Hannah', 'Louis', 'Mei', 'Tariq',
    'Elsie', 'Rafael', 'Orla', 'Dev', 'Matilda', 'Idris', 'Rosa', 'Jonas'];
  const initials = 'ABCDEFGHJKLMNPRSTVW';
  return first.flatMap((f) => [...initials].map((i) => `${f} ${i}.`));
}

export const NAMES: Record<PartyKind, readonly string[]> = {
  band: [
    'The Vales', 'Kestrel Drive', 'Low Orbit', 'The Marrows', 'Paper Lanterns', 'Glasshouse',
    'Saltmarsh', 'North Quay', 'The Wren Sisters', 'Static Bloom', 'Harbour Lights', 'Oxbow',
    'The Night Ferries', 'Copper Vale', 'Tidewater', 'Fenlight', 'Blue Aster', 'The Stillmen',
    'Half Moon Club', 'Riverbed', 'Ember & Ash', 'Coldharbour', 'The Lamplighters', 'Dovetail',
  ],
  artist: [
    'Nova Lane', 'Ellis Marr', 'Priya Shah', 'Jonah Crest', 'Ada Okafor', 'Tom Hadley',
    'Lucía Ferrer', 'Sam Whitlow', 'Mara Quinn', 'Kofi Mensah', 'Isla Brennan', 'Rhys Vaughan',
    'Hana Sato', 'Felix Romero', 'June Aldridge', 'Omar Haddad', 'Bea Lindqvist', 'Cal Morgan',
  ],
  student: students(),
  client: [
    'Halcyon Bank', 'Northwind Games', 'Harbour Press', 'Brightside Travel', 'Mosaic Films',
    'Fernway Foods', 'Orbit Mobile', 'Civic Radio', 'Lumen Learning', 'Thames Water Co-op',
    'Greenleaf Insurance', 'Atlas Audiobooks', 'Pilot Animation', 'Kite Museum',
  ],
  podcast: [
    'The Long Table', 'Small Hours', 'Second Draft', 'Out of Office', 'The Commute',
    'Kitchen Science', 'Deep Cuts', 'Matchday Minute', 'Borrowed Time', 'Local Heroes',
    'Plot Twist', 'The Quiet Hour',
  ],
  choir: [
    'Riverside Community Choir', 'Southbank Chamber Singers', 'St Olave’s Youth Choir',
    'Canal Street Barbershop Chorus', 'The Tuesday Singers', 'Bermondsey Gospel Choir',
    'Docklands Rock Choir', 'City Voices',
  ],
  ensemble: [
    'Harmony Street', 'The Quayside Four', 'Aurora Trio', 'Millpond Strings', 'Wharf Brass Quintet',
    'Lantern Street Quartet', 'The Close Harmony Club', 'Saffron Duo', 'Thameside Folk Trio',
  ],
};
