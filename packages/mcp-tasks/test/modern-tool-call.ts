// A plain 2026-07-28 tools/call of the task tool `throws`, from a client that declared the Tasks
// extension: what the tests of a create's errors send to the SDK's handler and to the direct path.
import { TASKS_EXTENSION_ID } from '../src/index.ts';

export const MODERN = '2026-07-28';

export const MODERN_CALL_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': 'throws',
};

export const modernCallBody = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'throws',
    arguments: {},
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION_ID]: {} } },
    },
  },
};
