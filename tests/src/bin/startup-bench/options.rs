//! The bench's command line.

use std::path::PathBuf;
use std::time::Duration;

use beckon_e2e::Failure;

/// A part of the bench, as `--only` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// First frames side by side with the empty Tauri app, and idle memory with the window open.
    Frames,
    /// The app's weight in the tray, long after its window was closed.
    Tray,
    /// A notification's click to its question on screen, warm and cold.
    Clicks,
    /// A question asked over HTTP to its `Notify` call on the bus.
    Notify,
}

impl Part {
    const ALL: [Part; 4] = [Part::Frames, Part::Tray, Part::Clicks, Part::Notify];

    fn name(self) -> &'static str {
        match self {
            Part::Frames => "frames",
            Part::Tray => "tray",
            Part::Clicks => "clicks",
            Part::Notify => "notify",
        }
    }

    fn named(name: &str) -> Result<Part, Failure> {
        Part::ALL
            .into_iter()
            .find(|part| part.name() == name)
            .ok_or_else(|| format!("--only knows frames, tray, clicks and notify, not {name:?}").into())
    }
}

pub struct Options {
    /// The app binary to measure.
    pub app: Option<PathBuf>,
    /// An empty Tauri app already built, instead of building the template.
    pub empty_app: Option<PathBuf>,
    /// Which counts of pending questions the first frame is measured with.
    pub pending: Vec<usize>,
    /// Launches of each subject.
    pub runs: usize,
    /// How long each launch idles before its memory is measured.
    pub idle: Duration,
    /// How long the app waits in the tray before it is weighed.
    pub tray: Duration,
    /// The keep-warm time the app in the tray runs with; `None`: the app's own default.
    pub tray_keep_warm: Option<u64>,
    /// Notification clicks timed warm, and cold.
    pub clicks: usize,
    /// Questions asked to time their notification.
    pub asks: usize,
    /// The parts to run.
    pub only: Vec<Part>,
    /// Where to write the JSON object with the machine's description.
    pub save: Option<PathBuf>,
}

const USAGE: &str = "use --app PATH, --empty-app PATH, --pending N[,N…], --runs N, --idle-seconds N, \
                     --tray-minutes N, --tray-keep-warm SECONDS, --clicks N, --asks N, \
                     --only frames,tray,clicks,notify, --save PATH";

impl Options {
    pub fn parse() -> Result<Options, Failure> {
        let mut options = Options {
            app: None,
            empty_app: None,
            pending: vec![1_000, 10_000],
            runs: 5,
            idle: Duration::from_secs(10),
            tray: Duration::from_secs(10 * 60),
            tray_keep_warm: None,
            clicks: 20,
            asks: 9,
            only: Part::ALL.to_vec(),
            save: None,
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
            match arg.as_str() {
                "--app" => options.app = Some(PathBuf::from(value()?)),
                "--empty-app" => options.empty_app = Some(PathBuf::from(value()?)),
                "--pending" => {
                    options.pending =
                        value()?.split(',').map(|count| count.trim().parse()).collect::<Result<Vec<usize>, _>>()?;
                }
                "--runs" => options.runs = value()?.parse::<usize>()?.max(1),
                "--idle-seconds" => options.idle = Duration::from_secs(value()?.parse()?),
                "--tray-minutes" => options.tray = Duration::try_from_secs_f64(value()?.parse::<f64>()? * 60.0)?,
                "--tray-keep-warm" => options.tray_keep_warm = Some(value()?.parse()?),
                "--clicks" => options.clicks = value()?.parse::<usize>()?.max(1),
                "--asks" => options.asks = value()?.parse::<usize>()?.max(1),
                "--only" => {
                    options.only =
                        value()?.split(',').map(|name| Part::named(name.trim())).collect::<Result<_, _>>()?;
                }
                "--save" => options.save = Some(PathBuf::from(value()?)),
                other => return Err(format!("unknown option {other}; {USAGE}").into()),
            }
        }
        Ok(options)
    }

    /// Whether `part` is to run.
    pub fn runs_part(&self, part: Part) -> bool {
        self.only.contains(&part)
    }
}
