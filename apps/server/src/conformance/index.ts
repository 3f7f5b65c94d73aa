// Conformance fixtures: the tools and task kinds the official MCP conformance suite calls.
// Off by default; MCP_CONFORMANCE_FIXTURES=1 turns them on (scripts/conformance.sh does).
export { fixtureTaskHandlers } from './fixture-tasks.ts';
export { FIXTURE_CAPABILITY_NEEDS, registerConformanceFixtures } from './fixture-tools.ts';
export { requireDeclaredCapabilities } from './capability-guard.ts';
