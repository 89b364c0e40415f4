import type { QuestionInfo } from "../../state/types";
import { isResumed } from "../../state/selectors";
import { useActions, useAppSelector } from "../../state/store";
import { QuestionCard } from "./QuestionCard";

/** A question card wired to the backend. */
export function ConnectedQuestionCard({
  question,
  onOpenSession,
  highlighted,
}: {
  question: QuestionInfo;
  onOpenSession?: () => void;
  highlighted?: boolean;
}) {
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
