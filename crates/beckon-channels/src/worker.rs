//! A channel's worker: it keeps the channel's messages in step with the store and turns presses
//! into answers.
//!
//! The store is the record. Each pass reads what the channel owes — posts a crash or a failure
//! left in doubt, pending questions without a message, messages whose question has ended — and
//! does it, writing each step before and after the service call: a post's row is `posting`
//! (with the channel's mark) before the post is sent, so a kill at any moment leaves either no
//! message (the row is looked for and then posted) or exactly one (found by the mark and
//! recorded). While a post is in doubt nothing else is posted at that place, which is what
//! lets a channel find its own last message. Failures are retried with jittered exponential
//! backoff; passes run when something changes (an event), when something falls due, and at
//! least once a minute.
//!
//! A press answers only the question its message shows: the press's question and message must
//! be the pair the store recorded, and the answer goes through the same call, checks and
//! first-answer-wins rule as the window's. Only the person allows: a question only they may
//! answer is posted only where they alone read it, a press on it from anyone else answers
//! nothing, and Allow is refused on a message that could not show the whole call.
//!
//! On a team server, people pair their own accounts (a code from their page, sent to the bot).
//! A question addressed to people or groups is never posted at the channel's own place: it goes
//! to the own messages of each paired person it is addressed to, one message each, kept under
//! `<channel>:<subject>` with the same crash-safe rows; a press from a paired account is that
//! person's answer, held to the same audience rules as their window.

use beckon_core::GivenAnswers;
use std::sync::Arc;
use std::time::Duration;

use beckon_core::{Answerer, RequestId, SignedInPerson};
use beckon_runtime::{Beckon, ChannelOutbox, ChannelPairing, Decision, Error as RuntimeError, WrongCodeLimit};
use beckon_store::{ChannelMessageState, QuestionRecord};
use rand::Rng;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::answers::to_answers;
use crate::channel::{Action, Channel, Heard, MessageRef, Person, Posting, Response};
use crate::desk::Desk;
use crate::error::Error;
use crate::outcome_text::{settled, summary};

/// The longest a worker waits between passes.
const MAX_IDLE: Duration = Duration::from_secs(60);
/// The longest wait between two attempts on one message.
const MAX_BACKOFF: Duration = Duration::from_secs(300);
/// Presses and pairing codes waiting to be handled.
const HEARD_QUEUE: usize = 64;
/// Told to someone who pressed on a question only the person may answer.
const NOT_THE_PERSON: &str = "Only the person Beckon answers for can answer this: it allows a tool call on their machine, or was asked of them. Nothing was answered.";
/// Told to someone who pressed on a question a team server addresses to people, from an account
/// no one paired.
const NOT_PAIRED: &str = "This question is addressed to people on a team inbox, and this account is not paired with anyone there: sign in on the team inbox's page and pair it first. Nothing was answered.";
/// Told to someone who sent a code that pairs nothing.
const NO_SUCH_CODE: &str = "That code pairs nothing: it is wrong, used or more than ten minutes old. Ask for a new one on the team inbox's page.";
/// Told to someone whose code was not read: too many wrong codes from their account lately.
const TOO_MANY_FROM_ACCOUNT: &str = "Too many wrong codes came from this account: no code from it is read for a while, not even a right one. Wait ten minutes, then send your code again (or ask for a new one on the team inbox's page).";
/// Told to someone whose code was not read: too many wrong codes to the app lately, from
/// everyone together.
const TOO_MANY_ON_CHANNEL: &str = "Too many wrong codes came to this app lately, from everyone together: no code is read for a while. Wait up to an hour, then ask for a new code on the team inbox's page.";
/// Told to someone who pressed Allow on a message that shows the call cut short.
const CUT_SHORT: &str = "This call is too long to show here in full, so it cannot be allowed here: open Beckon to read it whole. Nothing was answered.";

/// Which questions go to a channel, and how it retries.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Post only questions still unanswered this long after they were asked (zero: at once).
    pub delay: Duration,
    /// Only these agents' questions, when given.
    pub agents: Option<Vec<String>>,
    /// The wait after a first failed attempt; it doubles with each further one.
    pub retry_base: Duration,
}

impl Default for Policy {
    fn default() -> Self {
        Policy { delay: Duration::ZERO, agents: None, retry_base: Duration::from_secs(1) }
    }
}

/// A channel's worker and what it works with.
struct Worker<C: Channel> {
    beckon: Beckon,
    /// The channel's rows in the store.
    outbox: ChannelOutbox,
    channel: Arc<C>,
    policy: Policy,
    /// True while do-not-disturb is on: nothing new is posted; messages are still settled.
    dnd: watch::Receiver<bool>,
}

/// Runs `channel` for `beckon` until `stop`: its listener and its worker.
pub async fn run<C: Channel>(
    beckon: Beckon,
    channel: C,
    policy: Policy,
    dnd: watch::Receiver<bool>,
    stop: CancellationToken,
) {
    let channel = Arc::new(channel);
    let (heard_in, heard) = mpsc::channel(HEARD_QUEUE);
    let listener = tokio::spawn(channel.clone().listen(heard_in, stop.clone()));
    let worker = Worker { outbox: beckon.channel_outbox(), beckon, channel, policy, dnd };
    worker.work(heard, &stop).await;
    stop.cancel();
    let _ = listener.await;
}

/// The wait before the next attempt after `attempts` failed ones: doubling from `base`, with
/// ±50 % jitter, or what the service asked for.
fn backoff(base: Duration, attempts: i64, err: &Error) -> Duration {
    if let Error::RateLimited { retry_after_ms, .. } = err {
        return Duration::from_millis(*retry_after_ms).min(MAX_BACKOFF);
    }
    let exponent = attempts.clamp(0, 16) as u32;
    let wait = base.saturating_mul(2u32.saturating_pow(exponent)).min(MAX_BACKOFF);
    wait.mul_f64(rand::rng().random_range(0.5..1.5))
}

/// `wait` in milliseconds, as the clock counts.
fn millis(wait: Duration) -> i64 {
    i64::try_from(wait.as_millis()).unwrap_or(i64::MAX)
}

fn posting(question: &QuestionRecord, desk: &Desk) -> Posting {
    Posting {
        request_id: question.id,
        // On a team server, who asked is part of who asks: a person's question is never taken
        // for their agent's.
        asker: match &question.asked_by {
            Some(asked_by) => format!("{} (asked by {asked_by})", question.origin),
            None => question.origin.to_string(),
        },
        request: question.request.clone(),
        created_at_ms: question.created_at_ms,
        to: desk.to.clone(),
    }
}

impl<C: Channel> Worker<C> {
    fn name(&self) -> &'static str {
        self.channel.kind().as_str()
    }

    async fn work(&self, mut heard: mpsc::Receiver<Heard<C::Reply>>, stop: &CancellationToken) {
        let mut dnd = self.dnd.clone();
        let mut events = self.follow().await;
        // Passes fall due by the runtime's clock, which is also what the store's rules read
        // ("unanswered for N minutes"): a test moves it instead of waiting.
        let clock = self.beckon.clock();
        loop {
            let due = match self.pass().await {
                Ok(due) => due,
                Err(err) => {
                    tracing::warn!(channel = self.name(), %err, "channel pass failed");
                    Some(clock.now_ms().saturating_add(millis(self.policy.retry_base)))
                }
            };
            let latest = clock.now_ms().saturating_add(millis(MAX_IDLE));
            let sleep = clock.sleep_until(due.map_or(latest, |due| due.min(latest)));
            tokio::select! {
                () = stop.cancelled() => return,
                next = heard.recv() => match next {
                    Some(next) => self.hear(next).await,
                    None => return,
                },
                event = async {
                    match events.as_mut() {
                        Some(events) => events.next().await.map(drop),
                        None => std::future::pending().await,
                    }
                } => {
                    if event.is_err() {
                        // Fell too far behind: follow again from now (the next pass reads the
                        // store, so nothing missed is lost).
                        events = self.follow().await;
                    }
                }
                changed = dnd.changed() => {
                    if changed.is_err() {
                        return;
                    }
                }
                () = sleep => {}
            }
        }
    }

    /// Beckon's events from now on: each wakes a pass (none when Beckon is stopping).
    async fn follow(&self) -> Option<beckon_runtime::Subscription> {
        let seq = self.beckon.events().last_seq().await.ok()?;
        self.beckon.events().subscribe(seq).await.ok()
    }

    /// Does what the store says the channel owes now, at its own place and at each paired
    /// person's own messages; returns when more falls due.
    async fn pass(&self) -> Result<Option<i64>, Error> {
        let name = self.name();
        let mut due = self.pass_desk(&Desk::shared(name)).await?;
        let mut desks: Vec<Desk> =
            self.beckon.pairings().people(name).await?.iter().map(|paired| Desk::person(name, paired)).collect();
        for key in self.outbox.people_with_messages(name).await? {
            if !desks.iter().any(|desk| desk.key == key) {
                desks.push(Desk::former(&key));
            }
        }
        for desk in &desks {
            let next = self.pass_desk(desk).await?;
            due = [due, next].into_iter().flatten().min();
        }
        Ok(due)
    }

    /// One desk's part of a pass.
    async fn pass_desk(&self, desk: &Desk) -> Result<Option<i64>, Error> {
        let name = self.name();
        let key = desk.key.as_str();
        let work = self.outbox.work(key, self.policy.delay, self.policy.agents.clone(), desk.audiences.clone()).await?;
        let mut in_doubt = false;
        let now = self.beckon.now_ms();
        for (row, question) in &work.in_doubt {
            in_doubt |= row.next_attempt_at_ms > now
                || !self.resolve_doubt(desk, row.mark.as_deref().unwrap_or_default(), row.attempts, question).await?;
        }
        let dnd = *self.dnd.borrow();
        if !in_doubt && !dnd {
            for question in &work.to_post {
                // A question a team server addresses to a person or group is theirs alone: it
                // goes to the own messages of those of them who paired an account, never to
                // the channel's place, where everyone in it would read it.
                if desk.to.is_none()
                    && let Some(audience) = self.beckon.question_audience(question.id).await?
                {
                    tracing::info!(
                        channel = name,
                        request_id = %question.id,
                        %audience,
                        "the question is addressed to someone; it goes only to their own messages"
                    );
                    self.outbox.pass_over(key, question.id).await?;
                    continue;
                }
                if !self.channel.shows(&posting(question, desk)) {
                    tracing::info!(
                        channel = name,
                        request_id = %question.id,
                        "only the person may answer this question and the channel has no place only they read; not posted"
                    );
                    self.outbox.pass_over(key, question.id).await?;
                    continue;
                }
                if !self.post(desk, question).await? {
                    break;
                }
            }
        }
        for (row, question) in &work.to_settle {
            let (Some(conversation), Some(message)) = (&row.conversation, &row.message) else { continue };
            let Some(outcome) = settled(question) else { continue };
            let message = MessageRef { conversation: conversation.clone(), message: message.clone() };
            match self.channel.settle(&message, &posting(question, desk), &outcome).await {
                Ok(()) => self.outbox.settled(key, question.id).await?,
                Err(err) => {
                    tracing::warn!(channel = name, request_id = %question.id, %err, "cannot show how the question ended");
                    let wait = backoff(self.policy.retry_base, row.attempts, &err);
                    self.outbox
                        .attempt_failed(key, question.id, ChannelMessageState::Posted, &err.to_string(), wait)
                        .await?;
                }
            }
        }
        // Anything left unread (a full page) is due at once.
        let full = [work.in_doubt.len(), work.to_post.len(), work.to_settle.len()].into_iter().any(|n| n >= 64);
        Ok(if full { Some(self.beckon.now_ms()) } else { work.next_due_ms })
    }

    /// Looks for the message a post in doubt may have left; true once the doubt is over.
    async fn resolve_doubt(
        &self,
        desk: &Desk,
        mark: &str,
        attempts: i64,
        question: &QuestionRecord,
    ) -> Result<bool, Error> {
        let (name, key) = (self.name(), desk.key.as_str());
        match self.channel.find_posted(&posting(question, desk), mark).await {
            Ok(Some(found)) => {
                tracing::info!(channel = name, request_id = %question.id, "found the message of a post left in doubt");
                self.outbox.posted(key, question.id, &found.conversation, &found.message).await?;
            }
            Ok(None) if question.outcome.is_none() => {
                // Nothing was posted: post it again, at once.
                self.outbox
                    .attempt_failed(key, question.id, ChannelMessageState::Waiting, "not posted", Duration::ZERO)
                    .await?;
            }
            Ok(None) => self.outbox.abandon(key, question.id).await?,
            Err(err) => {
                tracing::warn!(channel = name, request_id = %question.id, %err, "cannot tell whether a post went out");
                let wait = backoff(self.policy.retry_base, attempts, &err);
                self.outbox
                    .attempt_failed(key, question.id, ChannelMessageState::Posting, &err.to_string(), wait)
                    .await?;
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Posts `question`'s message; false when the post is left in doubt (nothing more may be
    /// posted until it is resolved) or the service cannot take posts now.
    async fn post(&self, desk: &Desk, question: &QuestionRecord) -> Result<bool, Error> {
        let (name, key) = (self.name(), desk.key.as_str());
        let mark = match self.channel.mark(&posting(question, desk), self.beckon.now_ms()).await {
            Ok(mark) => mark,
            Err(err) => {
                tracing::warn!(channel = name, %err, "cannot prepare a post");
                return Ok(false);
            }
        };
        if !self.outbox.begin_post(key, question.id, &mark).await? {
            return Ok(true);
        }
        let attempts = self.outbox.message(key, question.id).await?.map_or(0, |row| row.attempts);
        match self.channel.post(&posting(question, desk)).await {
            Ok(message) => {
                self.outbox.posted(key, question.id, &message.conversation, &message.message).await?;
                tracing::debug!(channel = name, request_id = %question.id, "posted");
                Ok(true)
            }
            Err(err) => {
                // Refused or rate-limited: the service said no, so nothing was posted. Anything
                // else may have reached the service: the post stays in doubt.
                let state = if err.is_transient() && !matches!(err, Error::RateLimited { .. }) {
                    ChannelMessageState::Posting
                } else {
                    ChannelMessageState::Waiting
                };
                tracing::warn!(channel = name, request_id = %question.id, %err, "cannot post the question");
                let wait = backoff(self.policy.retry_base, attempts, &err);
                self.outbox.attempt_failed(key, question.id, state, &err.to_string(), wait).await?;
                Ok(false)
            }
        }
    }

    /// Acts on what a person sent the bot: a press, or a code to pair their account.
    async fn hear(&self, heard: Heard<C::Reply>) {
        let (response, reply, about) = match heard {
            Heard::Press(press) => {
                let response = self.answer(press.request_id, &press.message, &press.person, &press.action).await;
                (response, press.reply, Some(press.request_id))
            }
            Heard::PairingCode { person, code, reply } => (self.pair(&person, &code).await, reply, None),
        };
        if let Err(err) = self.channel.respond(reply, &response).await {
            tracing::warn!(channel = self.name(), request_id = ?about, %err, "cannot tell the person");
        }
    }

    /// Pairs the account `person` wrote from with whoever asked for `code` on their team inbox's
    /// page. Past the limit of wrong codes the code is not read, and Slack says so (Telegram
    /// says nothing to a code that does not pair).
    async fn pair(&self, person: &Person, code: &str) -> Response {
        match self.beckon.pairings().pair(self.name(), &person.id, code).await {
            Ok(ChannelPairing::Paired(paired)) => {
                let who = &paired.person;
                let name = who.name.as_deref().or(who.email.as_deref()).unwrap_or(&who.subject);
                Response::Told(format!(
                    "Paired with {name}: questions the team inbox addresses to you come here, and what you answer here is answered as you."
                ))
            }
            // Refused, not told: a channel anyone can write to keeps quiet about it.
            Ok(ChannelPairing::NoSuchCode) => Response::Refused(NO_SUCH_CODE.into()),
            Ok(ChannelPairing::NotRead(WrongCodeLimit::Account)) => Response::Refused(TOO_MANY_FROM_ACCOUNT.into()),
            Ok(ChannelPairing::NotRead(WrongCodeLimit::Channel)) => Response::Refused(TOO_MANY_ON_CHANNEL.into()),
            Err(err) => Response::Refused(format!("Beckon could not pair this account: {err}")),
        }
    }

    /// Whether the press's message is the question's own: at the channel's place, or in the
    /// presser's own messages.
    async fn shows_question(&self, desks: &[Desk], id: RequestId, message: &MessageRef) -> Result<bool, Error> {
        for desk in desks {
            let row = self.outbox.message(&desk.key, id).await?;
            if row.is_some_and(|row| {
                row.conversation.as_deref() == Some(message.conversation.as_str())
                    && row.message.as_deref() == Some(message.message.as_str())
            }) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    async fn answer(&self, id: RequestId, message: &MessageRef, person: &Person, action: &Action) -> Response {
        let name = self.name();
        let looked_up = async {
            let paired = self.beckon.pairings().person(name, &person.id).await?;
            let mut desks = vec![Desk::shared(name)];
            desks.extend(paired.iter().map(|paired| Desk::person(name, paired)));
            let own = self.shows_question(&desks, id, message).await?;
            let audience = self.beckon.question_audience(id).await?;
            Ok::<_, Error>((paired, own, audience))
        };
        let (paired, own, audience) = match looked_up.await {
            Ok(found) => found,
            Err(err) => return Response::Refused(format!("Beckon could not look this question up: {err}")),
        };
        if !own {
            tracing::warn!(channel = name, request_id = %id, "a press named a question its message does not show; ignored");
            return Response::Refused("This message does not belong to that question.".into());
        }
        let question = match self.beckon.inbox().question(id).await {
            Ok(question) => question,
            Err(err) => return Response::Refused(format!("Beckon could not look this question up: {err}")),
        };
        if audience.is_some() && paired.is_none() {
            tracing::warn!(channel = name, request_id = %id, "a press on an addressed question from an unpaired account; refused");
            return Response::Refused(NOT_PAIRED.into());
        }
        if audience.is_none() && question.request.person_only() && !self.channel.is_the_person(person) {
            tracing::warn!(
                channel = name,
                request_id = %id,
                person = %person.identity(self.channel.kind()),
                "a press on a question only the person may answer, by someone else; refused"
            );
            return Response::Refused(NOT_THE_PERSON.into());
        }
        // A paired account answers as the person who paired it: the same rules as their window.
        let answerer = match &paired {
            Some(paired) => Answerer {
                via: self.channel.kind().via(),
                by: Some(paired.person.answered_by()),
                signed_in: Some(SignedInPerson {
                    subject: paired.person.subject.clone(),
                    groups: paired.person.groups.clone(),
                }),
            },
            None => Answerer {
                via: self.channel.kind().via(),
                by: Some(person.identity(self.channel.kind())),
                signed_in: None,
            },
        };
        let result = match action {
            Action::Answer(items) => match to_answers(&question.request, items) {
                Ok(answers)
                    if question.request.allows(&answers)
                        && !self.channel.shows_whole(&posting(&question, &Desk::shared(name))) =>
                {
                    tracing::warn!(channel = name, request_id = %id, "Allow pressed on a message that shows the call cut; refused");
                    return Response::Refused(CUT_SHORT.into());
                }
                Ok(answers) => self.beckon.resolve(id, answerer, Decision::Answer(GivenAnswers::Typed(answers))).await,
                Err(problems) => Err(RuntimeError::InvalidAnswer(problems)),
            },
            Action::Decline => self.beckon.resolve(id, answerer, Decision::Decline(None)).await,
        };
        match result {
            Ok(receipt) if !receipt.repeat => Response::Accepted,
            Ok(receipt) => Response::AlreadyAnswered(summary(&question.request, &receipt.question.outcome)),
            Err(RuntimeError::AlreadyResolved(winner)) => {
                Response::AlreadyAnswered(summary(&question.request, &winner.outcome))
            }
            Err(RuntimeError::InvalidAnswer(problems)) => Response::Refused(format!("Not answered: {problems}")),
            Err(err) => Response::Refused(format!("Beckon could not record this answer: {err}")),
        }
    }
}
