//! Reading shell command text the way a POSIX shell splits it, simply but without being
//! fooled by quotes, backslashes or operators: a command becomes segments (simple commands)
//! of words, with the targets of their redirections apart.

/// One simple command: its words (quotes and backslashes resolved), where its redirections
/// point, and whether it reads the output of the command before it through a pipe.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Segment {
    pub words: Vec<String>,
    pub redirects: Vec<String>,
    pub piped: bool,
}

/// The characters that make a command more than one simple command, or make the shell run
/// something else than the words say: operators, redirections, substitutions, expansions.
const OPERATOR_CHARS: [char; 10] = [';', '&', '|', '<', '>', '`', '$', '(', ')', '\n'];

/// Whether `text` holds a shell operator, redirection, substitution, expansion or control
/// character other than a tab anywhere, even quoted: such a command is never covered by a rule.
pub(crate) fn has_operators(text: &str) -> bool {
    text.chars().any(|c| OPERATOR_CHARS.contains(&c) || (c.is_control() && c != '\t'))
}

/// The words of `text` when it is a single simple command with no redirection, or `None`.
pub(crate) fn simple_words(text: &str) -> Option<Vec<String>> {
    if has_operators(text) {
        return None;
    }
    let mut segments = segments(text)?;
    match (segments.pop(), segments.is_empty()) {
        (Some(segment), true) if segment.redirects.is_empty() && !segment.piped => Some(segment.words),
        _ => None,
    }
}

/// Whether `word` needs no quoting: letters, digits and `._/+@:%,=-`.
pub(crate) fn is_plain(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "._/+@:%,=-".contains(c))
}

/// `text` split into simple commands, or `None` when a quote is left open.
pub(crate) fn segments(text: &str) -> Option<Vec<Segment>> {
    Lexer::default().run(text)
}

/// `text` with quotes and backslashes dropped and grouping or substitution characters turned
/// into separators: a second reading that sees what quoting could hide
/// (`bash -c "rm -rf /"`, `echo "$(rm -rf /)"`).
pub(crate) fn flattened(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
        .map(|c| if matches!(c, '(' | ')' | '{' | '}' | '`') { ';' } else { c })
        .collect()
}

#[derive(Default)]
struct Lexer {
    done: Vec<Segment>,
    current: Segment,
    word: String,
    in_word: bool,
    redirect_next: bool,
}

impl Lexer {
    fn run(mut self, text: &str) -> Option<Vec<Segment>> {
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                ' ' | '\t' => self.finish_word(),
                '\n' | '\r' | ';' | '(' | ')' | '`' => self.end_segment(false),
                '&' => {
                    if chars.peek() == Some(&'>') {
                        chars.next();
                        self.finish_word();
                        self.redirect_next = true;
                    } else {
                        if chars.peek() == Some(&'&') {
                            chars.next();
                        }
                        self.end_segment(false);
                    }
                }
                '|' => {
                    if chars.peek() == Some(&'|') {
                        chars.next();
                        self.end_segment(false);
                    } else {
                        if chars.peek() == Some(&'&') {
                            chars.next();
                        }
                        self.end_segment(true);
                    }
                }
                '<' | '>' => {
                    self.finish_word();
                    while chars.peek().is_some_and(|next| matches!(next, '>' | '<' | '|' | '&')) {
                        chars.next();
                    }
                    if chars.peek() == Some(&'(') {
                        // Process substitution: what follows is a command of its own.
                        self.end_segment(false);
                    } else {
                        self.redirect_next = true;
                    }
                }
                '$' if chars.peek() == Some(&'(') => self.end_segment(false),
                '\\' => {
                    self.in_word = true;
                    match chars.next() {
                        Some('\n') => {}
                        Some(next) => self.word.push(next),
                        None => self.word.push('\\'),
                    }
                }
                '\'' => {
                    self.in_word = true;
                    loop {
                        match chars.next()? {
                            '\'' => break,
                            inner => self.word.push(inner),
                        }
                    }
                }
                '"' => {
                    self.in_word = true;
                    loop {
                        match chars.next()? {
                            '"' => break,
                            '\\' => match chars.next()? {
                                '\n' => {}
                                escaped @ ('"' | '\\' | '$' | '`') => self.word.push(escaped),
                                other => {
                                    self.word.push('\\');
                                    self.word.push(other);
                                }
                            },
                            inner => self.word.push(inner),
                        }
                    }
                }
                other => {
                    self.in_word = true;
                    self.word.push(other);
                }
            }
        }
        self.end_segment(false);
        Some(self.done)
    }

    fn finish_word(&mut self) {
        if !self.in_word {
            return;
        }
        let word = std::mem::take(&mut self.word);
        if self.redirect_next {
            self.current.redirects.push(word);
            self.redirect_next = false;
        } else {
            self.current.words.push(word);
        }
        self.in_word = false;
    }

    fn end_segment(&mut self, piped_next: bool) {
        self.finish_word();
        self.redirect_next = false;
        let next = Segment { piped: piped_next, ..Segment::default() };
        let segment = std::mem::replace(&mut self.current, next);
        if !segment.words.is_empty() || !segment.redirects.is_empty() {
            self.done.push(segment);
        }
    }
}
