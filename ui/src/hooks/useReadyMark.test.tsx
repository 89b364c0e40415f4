import { render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { READY_MARK, useReadyMark } from "./useReadyMark";

function Probe({ ready }: { ready: boolean }) {
  useReadyMark(ready);
  return null;
}

const marks = () => performance.getEntriesByName(READY_MARK).length;

describe("useReadyMark", () => {
  afterEach(() => performance.clearMarks(READY_MARK));

  it("marks nothing while loading, then once after the first ready frame", async () => {
    const view = render(<Probe ready={false} />);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(marks()).toBe(0);
    view.rerender(<Probe ready />);
    await waitFor(() => expect(marks()).toBe(1));
    view.rerender(<Probe ready={false} />);
    view.rerender(<Probe ready />);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(marks()).toBe(1);
  });
});
