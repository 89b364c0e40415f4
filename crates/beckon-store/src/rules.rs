//! The `rules` table (rules the person made, each allowing the approvals it covers, kept when
//! revoked so the audit's rule ids stay readable) and `rule_offers_dismissed` (offers the
//! person turned down). Offers are counted from the audit trail's allowed calls.

use beckon_core::Approval;
use beckon_core::rules::RuleSpec;

use crate::codec::{JSON_MAX_BYTES, from_json, name, to_json};
use crate::error::Result;
use crate::rows::{NewQuestion, Resolution, Resolved, RuleOffer, RuleRecord, RuleSource, TokenId};
use crate::sql::{Conn, Row, args};
use crate::store::Tx;

/// The key and the JSON of the rule that would cover calls like `approval`, when one may.
pub(crate) fn learn(approval: &Approval) -> Option<(String, String)> {
    let spec = RuleSpec::learn(approval)?;
    let json = to_json("rule", &spec, JSON_MAX_BYTES).ok()?;
    Some((spec.key(), json))
}

const COLUMNS: &str = "id, matcher, key, description, source, created_at, fired, last_fired_at, revoked_at";

fn record(row: &Row<'_>) -> Result<RuleRecord> {
    Ok(RuleRecord {
        id: row.get(0)?,
        spec: from_json("rules", "matcher", row.text(1)?)?,
        key: row.get(2)?,
        description: row.get(3)?,
        source: name("rules", "source", row.text(4)?, RuleSource::parse)?,
        created_at_ms: row.get(5)?,
        fired: row.get(6)?,
        last_fired_at_ms: row.get(7)?,
        revoked_at_ms: row.get(8)?,
    })
}

impl Tx<'_> {
    /// Stores a rule; when a live rule already has its key, that rule is returned instead and
    /// nothing changes.
    pub fn create_rule(&mut self, spec: &RuleSpec, source: RuleSource, at_ms: i64) -> Result<RuleRecord> {
        let key = spec.key();
        if let Some(live) = live_by_key(self.tx, &key)? {
            return Ok(live);
        }
        // The whole spec is kept in `matcher`, with its parts beside it for people reading the
        // file.
        let json = to_json("rule", spec, JSON_MAX_BYTES)?;
        let description = spec.describe();
        let id = self.tx.query_one(
            "INSERT INTO rules (tool, matcher, project, key, description, source, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
            &args![spec.tool, json, spec.project, key, description, source.as_str(), at_ms],
            |row| row.get(0),
        )?;
        Ok(RuleRecord {
            id,
            spec: spec.clone(),
            key,
            description,
            source,
            created_at_ms: at_ms,
            fired: 0,
            last_fired_at_ms: None,
            revoked_at_ms: None,
        })
    }

    /// Revokes rule `id`: the rule as it now stands (unchanged when it was revoked already), or
    /// `None` when there is no such rule.
    pub fn revoke_rule(&mut self, id: i64, at_ms: i64) -> Result<Option<RuleRecord>> {
        self.tx.execute("UPDATE rules SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL", &args![id, at_ms])?;
        get(self.tx, id)
    }

    /// Turns down the offer of the rule with `key`: it is not offered again.
    pub fn dismiss_rule_offer(&mut self, key: &str, at_ms: i64) -> Result<()> {
        self.tx.execute(
            "INSERT INTO rule_offers_dismissed (key, at) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING",
            &args![key, at_ms],
        )?;
        Ok(())
    }

    /// Stores `question` already allowed by live rule `rule` with `resolution`, all in this
    /// transaction: it is never pending, so no `question_pending` event is appended and no
    /// pending callback queued — only the resolution's. The rule's count goes up. When rule
    /// `rule` is no longer live, nothing is written and `None` is returned: the caller asks
    /// the person instead. `asked_by` is the token that asked, recorded as by
    /// [`mark_asked_by`](Tx::mark_asked_by) before the audit row names it.
    pub fn ask_allowed_by_rule(
        &mut self,
        question: &NewQuestion,
        resolution: &Resolution,
        rule: i64,
        asked_by: Option<TokenId>,
    ) -> Result<Option<Resolved>> {
        let fired = self.tx.execute(
            "UPDATE rules SET fired = fired + 1, last_fired_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
            &args![rule, resolution.at_ms],
        )?;
        if fired == 0 {
            return Ok(None);
        }
        self.ask_quietly(question)?;
        if let Some(token) = asked_by {
            self.mark_asked_by(question.id, token)?;
        }
        self.resolve_as(resolution, Some(rule)).map(Some)
    }
}

pub(crate) fn get(conn: Conn<'_>, id: i64) -> Result<Option<RuleRecord>> {
    conn.query_opt(&format!("SELECT {COLUMNS} FROM rules WHERE id = ?1"), &args![id], record)
}

fn live_by_key(conn: Conn<'_>, key: &str) -> Result<Option<RuleRecord>> {
    conn.query_opt(&format!("SELECT {COLUMNS} FROM rules WHERE key = ?1 AND revoked_at IS NULL"), &args![key], record)
}

/// Every rule, newest first; revoked ones too when `revoked` is set.
pub(crate) fn list(conn: Conn<'_>, revoked: bool) -> Result<Vec<RuleRecord>> {
    conn.query(
        &format!("SELECT {COLUMNS} FROM rules WHERE ?1 = 1 OR revoked_at IS NULL ORDER BY id DESC"),
        &args![i64::from(revoked)],
        record,
    )
}

/// Rules the person allowed calls of at least `min_allowed` times (not counting calls a rule
/// allowed), with no live rule and not turned down; most allowed first.
pub(crate) fn offers(conn: Conn<'_>, min_allowed: u32) -> Result<Vec<RuleOffer>> {
    // The latest allow's spec: with max(), SQLite takes the bare column from the row holding
    // the maximum; PostgreSQL says so. The conditions match SQLite's partial index.
    let (latest_spec, not_by_rule) = conn.pick(
        ("rule_spec", "via IS NOT 'rule'"),
        ("(array_agg(rule_spec ORDER BY resolved_at DESC, id DESC))[1]", "via IS DISTINCT FROM 'rule'"),
    );
    let offers = conn.query(
        &format!(
            "SELECT rule_key, {latest_spec}, count(*), max(resolved_at) FROM audit
             WHERE rule_key IS NOT NULL AND decision IN ('allow', 'allow_always') AND {not_by_rule}
               AND rule_key NOT IN (SELECT key FROM rules WHERE revoked_at IS NULL)
               AND rule_key NOT IN (SELECT key FROM rule_offers_dismissed)
             GROUP BY rule_key HAVING count(*) >= ?1
             ORDER BY count(*) DESC, max(resolved_at) DESC, rule_key"
        ),
        &args![i64::from(min_allowed)],
        |row| {
            let Some(spec) = row.optional_text(1)? else { return Ok(None) };
            let spec: RuleSpec = from_json("audit", "rule_spec", spec)?;
            Ok(Some(RuleOffer {
                key: row.get(0)?,
                description: spec.describe(),
                spec,
                allowed: u32::try_from(row.get::<i64>(2)?).unwrap_or(u32::MAX),
                last_allowed_at_ms: row.get(3)?,
            }))
        },
    )?;
    Ok(offers.into_iter().flatten().collect())
}
