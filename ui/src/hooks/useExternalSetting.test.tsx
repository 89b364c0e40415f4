import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { useExternalSetting } from "./useExternalSetting";

afterEach(cleanup);

/** A promise settled by the test. */
function later<T>() {
  let resolve: (value: T) => void = () => undefined;
  let reject: (failure: unknown) => void = () => undefined;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

const refused = (message: string) => Promise.reject({ kind: "unavailable", message });

describe("useExternalSetting", () => {
  it("reads the value when it opens, and a change is busy until it answers with the new one", async () => {
    const reading = later<boolean>();
    const written = later<boolean>();
    const read = () => reading.promise;
    const asked: boolean[] = [];
    const write = (next: boolean) => {
      asked.push(next);
      return written.promise;
    };
    const { result } = renderHook(() => useExternalSetting(read, write));
    expect(result.current).toMatchObject({ value: null, busy: false, error: null });
    await act(async () => reading.resolve(false));
    expect(result.current.value).toBe(false);

    let change: Promise<void> = Promise.resolve();
    act(() => {
      change = result.current.change(true);
    });
    expect(result.current).toMatchObject({ value: false, busy: true });
    await act(async () => {
      written.resolve(true);
      await change;
    });
    expect(result.current).toMatchObject({ value: true, busy: false, error: null });
    expect(asked).toEqual([true]);
  });

  it("says why it could not be read, and a change clears that", async () => {
    const read = () => refused("cannot read it");
    const { result } = renderHook(() => useExternalSetting(read, (next: boolean) => Promise.resolve(next)));
    await waitFor(() => expect(result.current.error).toBe("cannot read it"));
    expect(result.current.value).toBeNull();
    await act(() => result.current.change(true));
    expect(result.current).toMatchObject({ value: true, busy: false, error: null });
  });

  it("keeps the value a refused change did not replace, and says why", async () => {
    const read = () => Promise.resolve("before");
    const { result } = renderHook(() => useExternalSetting(read, () => refused("permission denied")));
    await waitFor(() => expect(result.current.value).toBe("before"));
    await act(() => result.current.change(undefined));
    expect(result.current).toMatchObject({ value: "before", busy: false, error: "permission denied" });
  });

  it("reads again when given another reader, and drops what a replaced one answers late", async () => {
    const first = later<string>();
    const { result, rerender } = renderHook(({ read }) => useExternalSetting(read, () => Promise.resolve("written")), {
      initialProps: { read: () => first.promise },
    });
    rerender({ read: () => Promise.resolve("second") });
    await waitFor(() => expect(result.current.value).toBe("second"));
    await act(async () => first.resolve("first"));
    expect(result.current.value).toBe("second");
  });
});
