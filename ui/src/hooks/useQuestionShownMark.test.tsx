import { render, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { QUESTION_SHOWN_MARK, useQuestionShownMark, type QuestionSentTo } from "./useQuestionShownMark";

/** The hook, with the cards whose ids are given drawn (a card is an article with the question's id). */
function Probe({ sentTo, cards }: { sentTo: QuestionSentTo | null; cards: string[] }) {
  useQuestionShownMark(sentTo);
  return (
    <div>
      {cards.map((id) => (
        <article key={id} data-request-id={id} />
      ))}
      {/* A placeholder holding a card's place is not the card. */}
      <div data-request-id="q-1" />
    </div>
  );
}

type Marked = { question: string; cardInDom: boolean };

/** The marks so far, each with whether its question's card was in the DOM when it was set. */
function watchMarks(): { marks: Marked[]; stop: () => void } {
  const marks: Marked[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const question = String((entry as PerformanceMark).detail?.question);
      marks.push({ question, cardInDom: document.querySelector(`article[data-request-id="${question}"]`) !== null });
    }
  });
  observer.observe({ type: "mark" });
  return { marks, stop: () => observer.disconnect() };
}

const frames = () => new Promise((resolve) => setTimeout(resolve, 50));
const shown = () => performance.getEntriesByName(QUESTION_SHOWN_MARK) as PerformanceMark[];

describe("useQuestionShownMark", () => {
  afterEach(() => performance.clearMarks(QUESTION_SHOWN_MARK));

  it("marks a question sent to once its card is drawn, not before, with its id", async () => {
    const watched = watchMarks();
    const sentTo = { id: "q-1" };
    const view = render(<Probe sentTo={sentTo} cards={["q-2"]} />);
    await frames();
    expect(shown()).toHaveLength(0);
    view.rerender(<Probe sentTo={sentTo} cards={["q-2", "q-1"]} />);
    await waitFor(() => expect(shown()).toHaveLength(1));
    expect(shown()[0]?.detail).toEqual({ question: "q-1" });
    await frames();
    expect(shown()).toHaveLength(1);
    watched.stop();
    expect(watched.marks.filter((mark) => mark.question === "q-1")).toEqual([{ question: "q-1", cardInDom: true }]);
  });

  it("marks again each time the window is sent to a question, even one already on screen", async () => {
    const view = render(<Probe sentTo={{ id: "q-1" }} cards={["q-1"]} />);
    await waitFor(() => expect(shown()).toHaveLength(1));
    view.rerender(<Probe sentTo={{ id: "q-1" }} cards={["q-1"]} />);
    await waitFor(() => expect(shown()).toHaveLength(2));
    view.rerender(<Probe sentTo={{ id: "q-3" }} cards={["q-1", "q-3"]} />);
    await waitFor(() => expect(shown()).toHaveLength(3));
    expect(shown().map((mark) => mark.detail)).toEqual([{ question: "q-1" }, { question: "q-1" }, { question: "q-3" }]);
  });

  it("waits for nothing once the person went elsewhere", async () => {
    const view = render(<Probe sentTo={{ id: "q-1" }} cards={[]} />);
    await frames();
    view.rerender(<Probe sentTo={null} cards={["q-1"]} />);
    await frames();
    expect(shown()).toHaveLength(0);
  });
});
