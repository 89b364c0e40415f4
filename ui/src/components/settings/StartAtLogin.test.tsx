import { cleanup, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeApi, renderWithStore } from "../../../test/render";
import { StartAtLogin } from "./StartAtLogin";

afterEach(cleanup);

describe("Start Beckon when I log in", () => {
  it("shows whether it is on and turns it on and off at once", async () => {
    let on = false;
    const calls: boolean[] = [];
    const api = fakeApi({
      startAtLogin: () => Promise.resolve(on),
      setStartAtLogin: (next) => {
        calls.push(next);
        on = next;
        return Promise.resolve(on);
      },
    });
    renderWithStore(<StartAtLogin />, { api });
    const toggle = screen.getByRole("switch", { name: "Start Beckon when I log in" });
    await vi.waitFor(() => expect(toggle).toBeEnabled());
    expect(toggle).not.toBeChecked();
    await userEvent.click(toggle);
    await vi.waitFor(() => expect(toggle).toBeChecked());
    await userEvent.click(toggle);
    await vi.waitFor(() => expect(toggle).not.toBeChecked());
    expect(calls).toEqual([true, false]);
  });

  it("says why it cannot be changed", async () => {
    const api = fakeApi({
      startAtLogin: () => Promise.resolve(false),
      setStartAtLogin: () => Promise.reject({ kind: "unavailable", message: "Starting at login could not be read or changed: permission denied" }),
    });
    renderWithStore(<StartAtLogin />, { api });
    const toggle = screen.getByRole("switch", { name: "Start Beckon when I log in" });
    await vi.waitFor(() => expect(toggle).toBeEnabled());
    await userEvent.click(toggle);
    expect(await screen.findByRole("alert")).toHaveTextContent("permission denied");
    expect(toggle).not.toBeChecked();
  });
});
