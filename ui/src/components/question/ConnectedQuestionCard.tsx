import { useEffect, useState } from "react";
import type { ErrorBody } from "../../bindings/ErrorBody";
import { isLoaded } from "../../state/questions";
import { isResumed } from "../../state/selectors";
import { useActions, useAppSelector } from "../../state/store";
import type { LoadedQuestion, QuestionInfo } from "../../state/types";
import { Spinner } from "../common/Spinner";
import { QuestionCard } from "./QuestionCard";

/**
 * A question card wired to the backend. A question known only by its inbox line is fetched
 * whole first; until then it shows its line, and nothing on it can be answered.
 */
export function ConnectedQuestionCard({
  question,
  onOpenSession,
  highlighted,
}: {
  question: QuestionInfo;
  onOpenSession?: () => void;
  highlighted?: boolean;
}) {
  if (!isLoaded(question)) return <QuestionLoading question={question} />;
  return <LoadedCard question={question} onOpenSession={onOpenSession} highlighted={highlighted} />;
}

function LoadedCard({ question, onOpenSession, highlighted }: { question: LoadedQuestion; onOpenSession?: () => void; highlighted?: boolean }) {
  const resumed = useAppSelector((state) => isResumed(state, question));
  const actions = useActions();
  return (
    <QuestionCard
      question={question}
      resumed={resumed}
      onAnswer={(answers) => actions.answer(question.id, answers)}
      onDecline={() => actions.decline(question.id)}
      onOpenSession={onOpenSession}
      highlighted={highlighted}
    />
  );
}

function QuestionLoading({ question }: { question: QuestionInfo }) {
  const actions = useActions();
  const [problem, setProblem] = useState<ErrorBody | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    void actions.loadQuestion(question.id).then((error) => {
      if (current) setProblem(error);
    });
    return () => {
      current = false;
    };
  }, [actions, question.id, attempt]);
  const summary = question.line?.summary;
  return (
    <article className="question-card question-loading" aria-busy={problem === null}>
      {summary ? <h3 className="question-text">{summary}</h3> : null}
      {problem === null ? (
        <p className="muted">
          <Spinner /> Loading the question…
        </p>
      ) : (
        <p role="alert" className="form-error">
          Could not load this question: {problem.message}{" "}
          <button
            type="button"
            onClick={() => {
              setProblem(null);
              setAttempt((n) => n + 1);
            }}
          >
            Try again
          </button>
        </p>
      )}
    </article>
  );
}
