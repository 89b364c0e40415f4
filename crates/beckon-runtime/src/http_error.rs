//! A failed HTTP request, described for logs and stored errors.

/// A transport error and its causes, joined ("error sending request: client error (Connect):
/// tcp connect error: Connection refused"): reqwest's own text alone does not say what went
/// wrong. The URL is left out: it may carry a secret (a webhook's path, a bot token, a query).
pub fn describe(error: reqwest::Error) -> String {
    causes(&error.without_url())
}

/// Any error and its causes, joined the same way (a cause that only repeats the one before is
/// left out).
pub fn causes(error: &dyn std::error::Error) -> String {
    let mut causes = vec![error.to_string()];
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if causes.last() != Some(&text) {
            causes.push(text);
        }
        source = cause.source();
    }
    causes.join(": ")
}
