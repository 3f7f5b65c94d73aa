export * from './site.ts';
export * from './rooms.ts';
export * from './series.ts';
export * from './bookings.ts';
export * from './tasks.ts';
export * from './task-events.ts';
export * from './reflow-audit.ts';
export * from './expired-tasks.ts';
