import type { Redis } from '@kith/platform';
import type { EventCopiesPort, StreamEvent } from '../domain/ports.js';

/*
 * A relay that dies after the stream stored a batch and before its rows were marked sent
 * publishes the batch again when its service comes back. Within the stream's duplicate window
 * the stream drops the copies by message id; after it they are stored again, under new stream
 * positions. So the first stream position an event id was seen at is kept, per producing service,
 * and a message carrying a known id at another position is a copy.
 *
 * A service's relay publishes its outbox in order and republishes only its oldest pending rows:
 * a copy always follows its original within about two batches of that service's own messages,
 * however long the outage. Keeping each service's last `perService` ids is therefore enough for
 * an outage of any length, in bounded memory. Every replica agrees (first position wins, one
 * script per batch), and a replay on resume gets the same answer as live dispatch did.
 */

// KEYS: per service, its id → position hash then its ids in order (a list).
// ARGV: cap, then per event: the index of its service's hash in KEYS, its id, its position.
// Answers one flag per event: 1 when it is a copy.
const FIRST_COPIES = `
local cap = tonumber(ARGV[1])
local copies = {}
for i = 2, #ARGV, 3 do
  local hash = KEYS[tonumber(ARGV[i])]
  local order = KEYS[tonumber(ARGV[i]) + 1]
  local id = ARGV[i + 1]
  local seen = redis.call('HGET', hash, id)
  if seen and seen ~= ARGV[i + 2] then
    copies[#copies + 1] = 1
  else
    copies[#copies + 1] = 0
    if not seen then
      redis.call('HSET', hash, id, ARGV[i + 2])
      if redis.call('RPUSH', order, id) > cap then redis.call('HDEL', hash, redis.call('LPOP', order)) end
    end
  end
end
return copies`;

interface CopiesCommands {
  eventCopies(numKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
}

/** Which stream messages are the first copy of their event (in Redis, under the service's prefix). */
export class EventCopiesStore implements EventCopiesPort {
  private readonly commands: CopiesCommands;

  constructor(
    redis: Redis,
    /** How many of each service's latest event ids are kept. */
    private readonly perService: number,
  ) {
    redis.defineCommand('eventCopies', { lua: FIRST_COPIES });
    this.commands = redis as unknown as CopiesCommands;
  }

  async firstCopies(events: readonly StreamEvent[]): Promise<StreamEvent[]> {
    if (events.length === 0) return [];
    const keys: string[] = [];
    const slot = new Map<string, number>();
    const args: (string | number)[] = [this.perService];
    for (const { event, streamSeq } of events) {
      let at = slot.get(event.service);
      if (at === undefined) {
        at = keys.length + 1;
        slot.set(event.service, at);
        // One hash tag for all: a Redis Cluster keeps every key of the script on one node.
        keys.push(`event-ids:{events}:${event.service}`, `event-ids:{events}:${event.service}:order`);
      }
      args.push(at, event.id, streamSeq);
    }
    const copies = await this.commands.eventCopies(keys.length, ...keys, ...args);
    return events.filter((_, i) => copies[i] !== 1);
  }
}
