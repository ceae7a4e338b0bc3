interface Client {
  active: number;
  /** Requests waiting for a slot, first come first served. */
  waiting: (() => void)[];
}

/**
 * How many requests to the services each client (address) has in flight at once. A client at its
 * limit waits for one of its own to finish: no client can hold more than `perClient` connections of
 * a service's pool, whatever it does with them (a body or an answer it reads slowly), and a client
 * that sends many requests at once still has them all served, a few at a time.
 */
export class ClientSlots {
  private readonly clients = new Map<string, Client>();

  constructor(
    private readonly perClient: number,
    /** Requests a client may have waiting; beyond that it is told to come back later. */
    private readonly maxWaiting: number,
  ) {}

  /**
   * Takes a slot for the client: true at once when one is free, a promise that resolves once one
   * is handed over, or false when the client's queue is full. Every taken slot is given back with
   * `release`.
   */
  acquire(client: string): true | false | Promise<void> {
    let entry = this.clients.get(client);
    if (!entry) this.clients.set(client, (entry = { active: 0, waiting: [] }));
    if (entry.active < this.perClient) {
      entry.active++;
      return true;
    }
    if (entry.waiting.length >= this.maxWaiting) return false;
    return new Promise<void>((resolve) => entry.waiting.push(resolve));
  }

  release(client: string): void {
    const entry = this.clients.get(client);
    if (!entry) return;
    // The slot goes straight to the next in line, so no newcomer overtakes those who waited.
    const next = entry.waiting.shift();
    if (next) return next();
    if (--entry.active === 0) this.clients.delete(client);
  }

  /** Clients with a request in flight, for tests and metrics. */
  get size(): number {
    return this.clients.size;
  }
}
