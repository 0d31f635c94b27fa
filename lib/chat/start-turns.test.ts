import { describe, expect, it } from "vitest";
import { StartTurns } from "./start-turns";

/** Burns CPU the way a start does, so a timer set before it is due when the loop next looks. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning
  }
}

describe("StartTurns", () => {
  it("gives turns in the order they were asked for", async () => {
    const turns = new StartTurns();
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((n) => turns.turn().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it("lets the event loop pass between two turns: a timer due meanwhile fires before the next turn", async () => {
    const turns = new StartTurns();
    const order: string[] = [];
    const first = turns.turn().then(() => {
      order.push("first");
      setTimeout(() => order.push("timer"), 1);
      busy(5);
    });
    const second = turns.turn().then(() => order.push("second"));
    await Promise.all([first, second]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(["first", "timer", "second"]);
  });

  it("never gives a turn in the same pass as the code asking for it", async () => {
    const turns = new StartTurns();
    let given = false;
    const turn = turns.turn().then(() => {
      given = true;
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(given).toBe(false);
    await turn;
    expect(given).toBe(true);
  });

  it("goes on giving turns asked for later, after the queue ran empty", async () => {
    const turns = new StartTurns();
    await turns.turn();
    const order: number[] = [];
    await Promise.all([turns.turn().then(() => order.push(1)), turns.turn().then(() => order.push(2))]);
    expect(order).toEqual([1, 2]);
  });
});
