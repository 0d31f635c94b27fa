/** A counting semaphore whose size is read at each acquire, so a config change applies at once. */
export class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  async acquire(max: number): Promise<() => void> {
    while (this.active >= max) await new Promise<void>((wake) => this.waiting.push(wake));
    this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      this.waiting.shift()?.();
    };
  }
}
