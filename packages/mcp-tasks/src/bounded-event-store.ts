// Last-Event-ID resumability for a 2025 session's streams: the last `capacity` events, in memory
// (a session lives on one node). An event id names its stream, so a client whose last event was
// already dropped still resumes on its stream; what it missed it re-reads with tasks/get.
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

export class BoundedEventStore implements EventStore {
  readonly #events: { id: string; streamId: string; seq: number; message: JSONRPCMessage }[] = [];
  #seq = 0;

  constructor(private readonly capacity: number) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const seq = ++this.#seq;
    const id = `${seq}.${streamId}`;
    this.#events.push({ id, streamId, seq, message });
    if (this.#events.length > this.capacity) this.#events.shift();
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return parse(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = parse(lastEventId);
    if (!last) throw new Error(`Last-Event-ID ${JSON.stringify(lastEventId)} was not issued by this session`);
    for (const event of this.#events)
      if (event.streamId === last.streamId && event.seq > last.seq) await send(event.id, event.message);
    return last.streamId;
  }
}

function parse(eventId: string): { seq: number; streamId: string } | undefined {
  const dot = eventId.indexOf('.');
  const seq = Number(eventId.slice(0, dot));
  return dot > 0 && Number.isInteger(seq) ? { seq, streamId: eventId.slice(dot + 1) } : undefined;
}
