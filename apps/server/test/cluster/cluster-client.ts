// A client of the cluster the way a load balancer without sticky sessions serves it: every request
// goes to the next node in turn; a node that refuses the connection (down) is skipped, as a health
// check would. A request cut off by a node dying mid-way is not retried: the client never heard.
import { rpc } from '../helpers/test-server.ts';
import type { ClusterNode } from './cluster-helper.ts';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';

/** The node died with the request in flight: the client got no answer. */
export class NoAnswer extends Error {
  constructor(
    readonly node: string,
    cause: unknown,
  ) {
    super(`no answer from ${node}`, { cause });
  }
}

const refused = (error: unknown) => (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';

export class RoundRobin {
  #next = 0;
  constructor(readonly nodes: ClusterNode[]) {}

  /** The node the next request goes to (and moves the turn on). */
  turn(): ClusterNode {
    const node = this.nodes[this.#next % this.nodes.length];
    this.#next++;
    return node;
  }

  /**
   * Sends one JSON-RPC request to the next node in turn, skipping nodes that are down. Throws
   * NoAnswer when a node took the request and died before answering.
   */
  async send(
    method: string,
    params: Record<string, unknown>,
    token: string,
    capabilities?: Record<string, unknown>,
  ): Promise<{ node: ClusterNode; body: any }> {
    let last: unknown;
    const deadline = loadAwareDeadline(60_000);
    for (let tries = 0; !deadline.passed(); tries++) {
      const node = this.turn();
      try {
        const { body } = await rpc(node.mcpUrl, method, params, { token, ...(capabilities ? { capabilities } : {}) });
        return { node, body };
      } catch (error) {
        last = error;
        if (!refused(error)) throw new NoAnswer(node.name, error);
        // Every node down for a moment (restarts): wait a little before the next round of tries, as a
        // load balancer holds a request while no backend is up.
        if (tries % this.nodes.length === this.nodes.length - 1) await new Promise((r) => setTimeout(r, 300));
      }
    }
    throw new Error(`no node of the cluster took ${method}`, { cause: last });
  }

  /** `send`, retried on the next node when one dies mid-way: for reads, which may safely repeat. */
  async read(
    method: string,
    params: Record<string, unknown>,
    token: string,
  ): Promise<{ node: ClusterNode; body: any }> {
    for (let tries = 0; ; tries++) {
      try {
        return await this.send(method, params, token);
      } catch (error) {
        if (!(error instanceof NoAnswer) || tries >= 5) throw error;
      }
    }
  }
}
