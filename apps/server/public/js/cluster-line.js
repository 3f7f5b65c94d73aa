// The header's cluster line: how many nodes share the store, and what each is running.
import { el, shortId } from './format.js';

/** Renders /api/nodes into `container`: "2 nodes · host:pid runs tsk_… · host:pid idle". */
export function renderClusterLine(container, { nodes, answeredBy }) {
  container.replaceChildren(
    el('span', { class: 'cluster-count', text: `${nodes.length} ${nodes.length === 1 ? 'node' : 'nodes'}` }),
    ...nodes.map((node) =>
      el(
        'span',
        {
          class: `cluster-node${node.id === answeredBy ? ' this-node' : ''}`,
          'data-node-id': node.id,
          'data-running': String(node.running.length),
          title: `${node.id} · ${node.workers} workers · heartbeat ${node.heartbeatAt}${node.id === answeredBy ? ' · answered this page' : ''}`,
        },
        `${node.host}:${node.pid} `,
        node.running.length
          ? el('span', { class: 'cluster-running', text: `runs ${node.running.map((id) => shortId(id)).join(', ')}` })
          : el('span', { class: 'cluster-idle', text: node.workers ? 'idle' : 'accept-only' }),
      ),
    ),
  );
}
