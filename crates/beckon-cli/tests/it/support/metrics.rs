//! What `beckon serve --metrics-listen` shows, read as Prometheus reads it.

use std::time::Duration;

use beckon_testkit::eventually;

/// The value of the sample `series` (`name` or `name{label="value"}`), if the scrape has it.
pub fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| line.rsplit_once(' ').filter(|(name, _)| *name == series))
        .map(|(_, value)| value.parse().unwrap())
}

/// Waits until the metrics listener at `addr` shows `count` agents' long-polls held (a client
/// waiting on an answer with `?wait=`), so a test goes on once its clients wait, not after a
/// guess at how long that takes.
pub async fn until_long_polls_open(addr: &str, count: usize) {
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let what = format!("{count} long-polls held at {addr}");
    eventually(&what, Duration::from_secs(30), || {
        let request = http.get(format!("http://{addr}/metrics")).send();
        async move {
            let text = request.await.ok()?.text().await.ok()?;
            (sample(&text, "beckon_long_polls_open")? == count as f64).then_some(())
        }
    })
    .await;
}
