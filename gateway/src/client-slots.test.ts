import { describe, expect, it } from 'vitest';
import { ClientSlots } from './client-slots.js';

describe('ClientSlots', () => {
  it('when a client has its slots in use, then its next request waits and gets the first slot given back', async () => {
    const slots = new ClientSlots(2, 10);
    expect(slots.acquire('a')).toBe(true);
    expect(slots.acquire('a')).toBe(true);
    const order: string[] = [];
    const third = slots.acquire('a') as Promise<void>;
    const fourth = slots.acquire('a') as Promise<void>;
    void third.then(() => order.push('third'));
    void fourth.then(() => order.push('fourth'));

    slots.release('a');
    await third;
    expect(order).toEqual(['third']);
    slots.release('a');
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
  });

  it('when one client is at its limit, then another is not held up', () => {
    const slots = new ClientSlots(1, 10);
    expect(slots.acquire('a')).toBe(true);
    expect(slots.acquire('b')).toBe(true);
  });

  it('when a client’s queue is full, then its next request is refused', () => {
    const slots = new ClientSlots(1, 1);
    expect(slots.acquire('a')).toBe(true);
    expect(slots.acquire('a')).toBeInstanceOf(Promise);
    expect(slots.acquire('a')).toBe(false);
  });

  it('when every slot of a client is given back, then nothing of it is kept', async () => {
    const slots = new ClientSlots(1, 10);
    slots.acquire('a');
    const waiting = slots.acquire('a') as Promise<void>;
    slots.release('a');
    await waiting;
    slots.release('a');
    expect(slots.size).toBe(0);
  });
});
