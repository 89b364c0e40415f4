//! A failed HTTP request, described for logs and stored errors.

/// A transport error and its causes, joined ("error sending request: client error (Connect):
/// tcp connect error: Connection refused"): reqwest's own text alone does not say what went
/// wrong. The URL is left out: it may carry a secret (a webhook's path, a bot token, a query).
pub fn describe(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut causes = vec![error.to_string()];
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        let text = cause.to_string();
        if causes.last() != Some(&text) {
            causes.push(text);
        }
        source = cause.source();
    }
    causes.join(": ")
}
