import { act, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PHONE_LAYOUT, usePhoneLayout } from "./usePhoneLayout";

function Layout() {
  return <p>{usePhoneLayout() ? "phone" : "desktop"}</p>;
}

/** A `matchMedia` whose answer the test changes, telling the listeners as a browser does. */
function fakeScreen(matches: boolean) {
  const listeners = new Set<() => void>();
  const asked: string[] = [];
  const list = {
    matches,
    addEventListener: (_: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
  };
  vi.stubGlobal("matchMedia", (query: string) => {
    asked.push(query);
    return list;
  });
  return {
    asked,
    listeners,
    turn(next: boolean) {
      list.matches = next;
      act(() => listeners.forEach((listener) => listener()));
    },
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("usePhoneLayout", () => {
  it("is the desktop layout where there is no matchMedia (jsdom, old engines)", () => {
    expect(window.matchMedia).toBeUndefined();
    render(<Layout />);
    expect(screen.getByText("desktop")).toBeInTheDocument();
  });

  it("asks the CSS's query and follows the window across it", () => {
    const screenSize = fakeScreen(true);
    const { unmount } = render(<Layout />);
    expect(screen.getByText("phone")).toBeInTheDocument();
    expect(screenSize.asked.every((query) => query === PHONE_LAYOUT)).toBe(true);
    screenSize.turn(false);
    expect(screen.getByText("desktop")).toBeInTheDocument();
    screenSize.turn(true);
    expect(screen.getByText("phone")).toBeInTheDocument();
    unmount();
    expect(screenSize.listeners.size).toBe(0);
  });
});
