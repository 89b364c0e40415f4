//! Server-sent events: an incremental parser (bytes in, events out, no I/O), and in its
//! submodules the HTTP exchange both providers share.
//!
//! The parser follows the WHATWG event-stream rules that LLM APIs rely on: `event:` and `data:`
//! fields (several `data:` lines join with `\n`), `:` comment lines, `\n`, `\r\n` and `\r` line
//! ends, a leading byte-order mark, and input split anywhere, even inside a UTF-8 character
//! (a line is decoded only once it is complete). `id:` and `retry:` are ignored: Beckon never
//! reconnects a stream, the state machine retries the whole request. One event may not grow
//! past a limit, so a broken or hostile server cannot make the buffer grow without bound.

pub(super) mod exchange;
pub(super) mod failure;

use std::fmt;

/// The largest event accepted: far above any real delta, far below a memory problem.
pub(super) const MAX_EVENT_BYTES: usize = 4 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Event {
    /// The `event:` field; empty when the server sent none (a plain message).
    pub(super) name: String,
    /// The `data:` lines, joined with `\n`.
    pub(super) data: String,
}

/// An event grew past the parser's limit; the stream cannot be trusted any further.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct EventTooLarge {
    /// The limit, in bytes.
    pub(super) limit: usize,
}

impl fmt::Display for EventTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an event passed the limit of {} bytes", self.limit)
    }
}

/// Turns the bytes of an event stream, fed in pieces of any size, into events.
#[derive(Debug)]
pub(super) struct Parser {
    /// The bytes of the line being read (its end not seen yet).
    line: Vec<u8>,
    /// The `event:` field of the event being read.
    name: String,
    /// The `data:` lines of the event being read, each followed by `\n` (as the spec's buffer).
    data: String,
    /// The last byte fed was `\r`: a `\n` first in the next piece ends no second line.
    after_cr: bool,
    /// No line has been completed yet (a byte-order mark may open the stream).
    at_start: bool,
    /// The most bytes one event (its data plus the line being read) may hold.
    limit: usize,
}

impl Default for Parser {
    fn default() -> Self {
        Self::new(MAX_EVENT_BYTES)
    }
}

impl Parser {
    /// A parser that refuses events larger than `limit` bytes.
    pub(super) fn new(limit: usize) -> Self {
        Self { line: Vec::new(), name: String::new(), data: String::new(), after_cr: false, at_start: true, limit }
    }

    /// Reads the next piece of the stream and returns the events it completes, in order.
    pub(super) fn feed(&mut self, mut bytes: &[u8]) -> Result<Vec<Event>, EventTooLarge> {
        let mut events = Vec::new();
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        while let Some(end) = bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.extend_line(&bytes[..end])?;
            let line = std::mem::take(&mut self.line);
            self.read_line(&line, &mut events)?;
            let ended_by_cr = bytes[end] == b'\r';
            bytes = &bytes[end + 1..];
            if ended_by_cr {
                match bytes.strip_prefix(b"\n") {
                    Some(rest) => bytes = rest,
                    None => self.after_cr = bytes.is_empty(),
                }
            }
        }
        self.extend_line(bytes)?;
        Ok(events)
    }

    fn extend_line(&mut self, piece: &[u8]) -> Result<(), EventTooLarge> {
        if self.line.len() + piece.len() + self.data.len() > self.limit {
            return Err(EventTooLarge { limit: self.limit });
        }
        self.line.extend_from_slice(piece);
        Ok(())
    }

    fn read_line(&mut self, mut line: &[u8], events: &mut Vec<Event>) -> Result<(), EventTooLarge> {
        if std::mem::replace(&mut self.at_start, false) {
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(events);
            return Ok(());
        }
        if line.starts_with(b":") {
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &line[line.len()..]),
        };
        match field {
            b"event" => self.name = String::from_utf8_lossy(value).into_owned(),
            b"data" => {
                if self.data.len() + value.len() + 1 > self.limit {
                    return Err(EventTooLarge { limit: self.limit });
                }
                self.data.push_str(&String::from_utf8_lossy(value));
                self.data.push('\n');
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, events: &mut Vec<Event>) {
        let name = std::mem::take(&mut self.name);
        let mut data = std::mem::take(&mut self.data);
        // The spec's rule: an event with no data line is not dispatched at all.
        if data.pop().is_some() {
            events.push(Event { name, data });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, data: &str) -> Event {
        Event { name: name.to_owned(), data: data.to_owned() }
    }

    fn parse_in_pieces(pieces: &[&[u8]]) -> Vec<Event> {
        let mut parser = Parser::default();
        pieces.iter().flat_map(|piece| parser.feed(piece).unwrap()).collect()
    }

    /// Every feature at once: a byte-order mark, all three line ends, comments, multi-line data,
    /// an event with no data, unknown fields, a field with no colon, and multi-byte characters.
    const SAMPLE: &[u8] = "\u{feff}: a comment\r\n\
        event: message_start\r\n\
        data: {\"type\":\"message_start\"}\r\n\r\n\
        event:ping\rdata:{\"type\": \"ping\"}\r\r\
        data: first line\n\
        data:  two spaces kept but one\n\
        data\n\
        id: 7\nretry: 10\n\n\
        event: lonely\n\n\
        data: héllo 👋 wörld ✓\n\n\
        :keepalive\n\
        event: content_block_delta\n\
        data: {\"text\":\"日本語\"}\r\n\r\n\
        data: [DONE]\n\n\
        data: never finished"
        .as_bytes();

    fn sample_events() -> Vec<Event> {
        vec![
            event("message_start", "{\"type\":\"message_start\"}"),
            event("ping", "{\"type\": \"ping\"}"),
            event("", "first line\n two spaces kept but one\n"),
            event("", "héllo 👋 wörld ✓"),
            event("content_block_delta", "{\"text\":\"日本語\"}"),
            event("", "[DONE]"),
        ]
    }

    #[test]
    fn the_sample_parses_in_one_piece() {
        assert_eq!(parse_in_pieces(&[SAMPLE]), sample_events());
    }

    #[test]
    fn every_split_point_gives_the_same_events() {
        for split in 0..=SAMPLE.len() {
            let (head, tail) = SAMPLE.split_at(split);
            assert_eq!(parse_in_pieces(&[head, tail]), sample_events(), "split at byte {split}");
        }
    }

    #[test]
    fn every_pair_of_split_points_gives_the_same_events() {
        for first in 0..=SAMPLE.len() {
            for second in first..=SAMPLE.len() {
                let pieces = [&SAMPLE[..first], &SAMPLE[first..second], &SAMPLE[second..]];
                assert_eq!(parse_in_pieces(&pieces), sample_events(), "split at bytes {first} and {second}");
            }
        }
    }

    #[test]
    fn byte_by_byte_gives_the_same_events() {
        let pieces: Vec<&[u8]> = SAMPLE.chunks(1).collect();
        assert_eq!(parse_in_pieces(&pieces), sample_events());
    }

    #[test]
    fn a_cr_then_lf_in_separate_pieces_ends_one_line_only() {
        // Were the `\n` read as a second line end, the empty line would dispatch early.
        assert_eq!(parse_in_pieces(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]), vec![event("", "a\nb")]);
    }

    #[test]
    fn a_lone_cr_before_more_data_ends_a_line() {
        assert_eq!(parse_in_pieces(&[b"data: a\r", b"data: b\r\r"]), vec![event("", "a\nb")]);
    }

    #[test]
    fn an_empty_data_line_dispatches_an_empty_event() {
        assert_eq!(parse_in_pieces(&[b"event: x\ndata\n\n"]), vec![event("x", "")]);
    }

    #[test]
    fn the_event_name_does_not_leak_into_the_next_event() {
        assert_eq!(parse_in_pieces(&[b"event: a\ndata: 1\n\ndata: 2\n\n"]), vec![event("a", "1"), event("", "2")]);
    }

    #[test]
    fn an_unfinished_event_at_the_end_is_not_dispatched() {
        assert_eq!(parse_in_pieces(&[b"data: done\n\ndata: half"]), vec![event("", "done")]);
        assert_eq!(parse_in_pieces(&[b"data: half\n"]), vec![]);
    }

    #[test]
    fn a_byte_order_mark_only_counts_at_the_start() {
        let events = parse_in_pieces(&["data: a\n\n\u{feff}data: b\n\n".as_bytes()]);
        assert_eq!(events, vec![event("", "a")], "a later BOM makes an unknown field, which is ignored");
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        assert_eq!(parse_in_pieces(&[b"data: a\xffb\n\n"]), vec![event("", "a\u{fffd}b")]);
    }

    #[test]
    fn a_long_line_is_refused_before_it_is_buffered() {
        let mut parser = Parser::new(16);
        assert_eq!(parser.feed(b"data: 0123456789").unwrap(), vec![]);
        assert_eq!(parser.feed(b"abc"), Err(EventTooLarge { limit: 16 }));
    }

    #[test]
    fn many_data_lines_adding_up_past_the_limit_are_refused() {
        // Each line is 11 bytes and adds 6 to the data: the third no longer fits beside the data.
        let mut parser = Parser::new(20);
        assert_eq!(parser.feed(b"data: 01234\ndata: 56789\n").unwrap(), vec![]);
        assert_eq!(parser.feed(b"data: abcde\n"), Err(EventTooLarge { limit: 20 }));
    }

    #[test]
    fn the_limit_is_per_event_not_per_stream() {
        let mut parser = Parser::new(16);
        for _ in 0..100 {
            assert_eq!(parser.feed(b"data: 0123456789\n\n").unwrap(), vec![event("", "0123456789")]);
        }
    }

    #[test]
    fn comments_count_toward_the_limit_while_unfinished() {
        let mut parser = Parser::new(8);
        assert!(parser.feed(b": a very long comment without an end").is_err());
    }
}
