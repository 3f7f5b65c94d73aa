// The server as a library: the demo and the tests start it the same way `npm start` does.
export { loadConfig, configSchema, type Config } from './config.ts';
export { startServer, type RunningServer } from './start-server.ts';
export { buildApp, VERSION } from './app.ts';
export { createServices, type Services, type ServicesOptions } from './services.ts';
export { openStore } from './open-store.ts';
export { startStdioServer, type StdioServer } from './serve-stdio.ts';
