import { useEffect, useState } from "react";
import { errorBodyOf } from "../../api/errors";
import type { RuleOffer } from "../../api/triage";
import { useAppSelector, useBackendHandles } from "../../state/store";
import { CodeText } from "../common/CodeText";

/**
 * The backend's offer to turn something the person keeps allowing into a rule: "Always allow
 * `npm test` in shop? — allowed 3 times", with Make it a rule and Not now. Offers are fetched
 * again whenever a question is asked or resolved.
 */
export function RuleOfferBanner() {
  const { api } = useBackendHandles();
  const epoch = useAppSelector((state) => state.questionEpoch);
  const [offers, setOffers] = useState<RuleOffer[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let live = true;
    api.ruleOffers().then(
      (fresh) => {
        if (live) setOffers(fresh);
      },
      () => {
        // Offers are a convenience; without them the inbox works as before.
      },
    );
    return () => {
      live = false;
    };
  }, [api, epoch, reload]);

  const offer = offers[0];
  if (!offer) return null;
  const act = async (run: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await run();
      setOffers((old) => old.filter((candidate) => candidate.key !== offer.key));
      setReload((n) => n + 1);
    } catch (failure) {
      setError(errorBodyOf(failure).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="rule-offer" role="region" aria-label="Rule suggestion">
      <p>
        <CodeText text={offer.description} /> <span className="muted">— allowed {offer.allowed === 1 ? "once" : `${offer.allowed} times`}</span>
      </p>
      {error ? <p className="field-error" role="alert">{error}</p> : null}
      <div className="rule-offer-actions">
        <button type="button" className="button button-primary" disabled={busy} onClick={() => void act(() => api.createRule(offer.spec, "offered"))}>
          Make it a rule
        </button>
        <button type="button" className="button button-quiet" disabled={busy} onClick={() => void act(() => api.dismissRuleOffer(offer.key))}>
          Not now
        </button>
      </div>
    </div>
  );
}
