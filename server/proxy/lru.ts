/** A Map that forgets its least recently set entries beyond `max`. */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}

  get(k: K): V | undefined {
    return this.map.get(k);
  }

  set(k: K, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }

  delete(k: K): void {
    this.map.delete(k);
  }

  entries(): [K, V][] {
    return [...this.map.entries()];
  }

  get size(): number {
    return this.map.size;
  }
}
