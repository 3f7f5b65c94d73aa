import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Store } from '@reflow/db';
import type { LegacyTaskStore } from '@reflow/mcp-tasks';
import { OwnedTaskStore, toTaskView, type TaskEngine } from '@reflow/tasks';

/**
 * The owner-keyed task store, plus the paged listing the 2025-11-25 task API offers (tasks/list).
 * A cursor is opaque to clients: the position (creation time, id) of the last task of a page.
 */
export class ListedTaskStore extends OwnedTaskStore implements LegacyTaskStore {
  readonly #engine: TaskEngine;
  readonly #store: Store;
  readonly #seesAll: boolean;

  constructor(engine: TaskEngine, store: Store, options: { seesAll?: boolean } = {}) {
    super(engine, options);
    this.#engine = engine;
    this.#store = store;
    this.#seesAll = options.seesAll ?? false;
  }

  /**
   * Answers a task's questions: only its owner may. An operator sees and cancels every task, but a
   * client's own `confirm` question is the client's to answer (the operator decides through /api).
   */
  override async update(taskId: string, principal: string, inputResponses: Record<string, unknown>): Promise<boolean> {
    const row = await this.#engine.get(taskId);
    // Anyone else cannot see the task at all: super answers as for an unknown id.
    if (row && row.owner !== principal && this.#seesAll)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${taskId} is ${row.owner}'s: only its owner answers its questions (an operator may see and cancel it, and decides approvals through /api)`,
      );
    return super.update(taskId, principal, inputResponses);
  }

  async list(principal: string, page: { cursor?: string; limit: number }) {
    const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    if (page.cursor !== undefined && !before) return undefined;
    const rows = await this.#store.tasks.listForOwner(principal, page.limit + 1, before);
    const shown = rows.slice(0, page.limit);
    const last = shown.at(-1);
    return {
      // As tasks/get shows each task (OwnedTaskStore.get): the poll interval it should use now.
      tasks: await Promise.all(shown.map(async (row) => toTaskView(row, await this.#engine.pollIntervalFor(row)))),
      ...(rows.length > page.limit && last
        ? { nextCursor: encodeCursor({ createdAt: last.createdAt, id: last.id }) }
        : {}),
    };
  }
}

const encodeCursor = (at: { createdAt: number; id: string }) =>
  Buffer.from(JSON.stringify([at.createdAt, at.id])).toString('base64url');

function decodeCursor(cursor: string): { createdAt: number; id: string } | undefined {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    return Number.isInteger(createdAt) && typeof id === 'string' ? { createdAt: createdAt as number, id } : undefined;
  } catch {
    return undefined;
  }
}
