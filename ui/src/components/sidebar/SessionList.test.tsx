import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { NOW, summary } from "../../../test/builders";
import { renderWithStore } from "../../../test/render";
import { snapshot, stateFrom } from "../../../test/state";
import { FIRST_FRAME_SESSIONS, SessionList } from "./SessionList";

describe("SessionList", () => {
  it("draws the sessions a sidebar shows in the first frame, and every one a frame later", async () => {
    const count = FIRST_FRAME_SESSIONS + 16;
    const sessions = Array.from({ length: count }, (_, i) => summary(`s-${i}`, { title: `Session ${i}`, created_at_ms: NOW - i * 1000 }));
    renderWithStore(<SessionList currentId={null} onOpen={() => undefined} />, { state: stateFrom(snapshot({ sessions: { sessions, next: null } })) });
    const list = screen.getByRole("navigation", { name: "Sessions" });
    expect(within(list).getAllByRole("listitem")).toHaveLength(FIRST_FRAME_SESSIONS);
    expect(within(list).getByText("Session 0")).toBeInTheDocument();
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(count));
    expect(within(list).getByText(`Session ${count - 1}`)).toBeInTheDocument();
  });
});
