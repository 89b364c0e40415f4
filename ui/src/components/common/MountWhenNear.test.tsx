import { act, render, screen } from "@testing-library/react";
import { useRef } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MountWhenNear } from "./MountWhenNear";

type Callback = (entries: { isIntersecting: boolean }[]) => void;
let observers: { callback: Callback; targets: Element[]; options?: IntersectionObserverInit }[] = [];

class FakeObserver {
  private record: (typeof observers)[number];
  constructor(callback: Callback, options?: IntersectionObserverInit) {
    this.record = { callback, targets: [], options };
    observers.push(this.record);
  }
  observe(target: Element) {
    this.record.targets.push(target);
  }
  disconnect() {
    observers = observers.filter((o) => o !== this.record);
  }
}

function Probe({ eager }: { eager: boolean }) {
  const scroller = useRef<HTMLDivElement | null>(null);
  return (
    <div ref={scroller} data-testid="scroller">
      <MountWhenNear scroller={scroller} eager={eager} id="q-1" estimate={200}>
        <input aria-label="answer" />
      </MountWhenNear>
    </div>
  );
}

describe("MountWhenNear", () => {
  beforeEach(() => {
    observers = [];
    vi.stubGlobal("IntersectionObserver", FakeObserver);
  });
  afterEach(() => vi.unstubAllGlobals());

  it("holds a placeholder with the id until the content scrolls near, then keeps it", () => {
    const view = render(<Probe eager={false} />);
    expect(screen.queryByLabelText("answer")).toBeNull();
    const placeholder = view.container.querySelector("[data-request-id='q-1']");
    expect(placeholder).not.toBeNull();
    expect(observers).toHaveLength(1);
    expect(observers[0]?.options?.root).toBe(screen.getByTestId("scroller"));
    act(() => observers[0]?.callback([{ isIntersecting: false }]));
    expect(screen.queryByLabelText("answer")).toBeNull();
    act(() => observers[0]?.callback([{ isIntersecting: true }]));
    expect(screen.getByLabelText("answer")).toBeTruthy();
    expect(observers).toHaveLength(0);
    view.rerender(<Probe eager={false} />);
    expect(screen.getByLabelText("answer")).toBeTruthy();
  });

  it("renders at once when eager, and stays when no longer eager", () => {
    const view = render(<Probe eager />);
    expect(screen.getByLabelText("answer")).toBeTruthy();
    expect(observers).toHaveLength(0);
    view.rerender(<Probe eager={false} />);
    expect(screen.getByLabelText("answer")).toBeTruthy();
  });

  it("becomes eager when navigated to", () => {
    const view = render(<Probe eager={false} />);
    expect(screen.queryByLabelText("answer")).toBeNull();
    view.rerender(<Probe eager />);
    expect(screen.getByLabelText("answer")).toBeTruthy();
  });
});
