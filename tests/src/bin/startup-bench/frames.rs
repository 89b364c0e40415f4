//! First frames and idle memory with the window open: Beckon with nothing pending, Beckon with
//! each count of questions pending, and the empty Tauri app, launched in turns through
//! WebDriver so all see the same machine.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

use beckon_e2e::{App, Bus, Failure, Home, procs, seed};

use crate::launch::ANY_GATEWAY_PORT;
use crate::memory::{self, ProcessMemory};

/// Start-up's stages as the page times them, in the order they happen: what the page calls
/// each (`null` when it has none) and the label printed for it.
pub const STAGES: [(&str, &str); 5] = [
    ("page", "page created"),
    ("dom", "page parsed"),
    ("snapshot", "snapshot in"),
    ("rendered", "in the DOM"),
    ("ready", "first frame"),
];

/// The page's script reading the stages, in milliseconds since the epoch.
const STAGES_SCRIPT: &str = "const at = (name) => { const m = performance.getEntriesByName(name)[0]; return m ? performance.timeOrigin + m.startTime : null; };
const nav = performance.getEntriesByType('navigation')[0];
return { page: performance.timeOrigin, dom: nav ? performance.timeOrigin + nav.domContentLoadedEventEnd : null, snapshot: at('beckon:snapshot'), rendered: at('beckon:rendered'), ready: at('beckon:ready') };";

/// Waits for the window's `beckon:ready` mark; then when each stage was reached, in
/// milliseconds since the epoch (the last one, `ready`, always there).
async fn ready_stages(app: &App) -> Result<Vec<Option<f64>>, Failure> {
    let started = Instant::now();
    loop {
        let stages = app.eval(STAGES_SCRIPT).await?;
        if stages["ready"].as_f64().is_some() {
            return Ok(STAGES.iter().map(|(name, _)| stages[name].as_f64()).collect());
        }
        if started.elapsed() > Duration::from_secs(120) {
            return Err("the window never became ready".into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for the window's `beckon:ready` mark.
pub async fn ready_mark(app: &App) -> Result<(), Failure> {
    ready_stages(app).await.map(drop)
}

/// One launch.
pub struct Launch {
    pub to_ready: Duration,
    /// When each of [`STAGES`] was reached after the process started, where the page timed it.
    pub stages: Vec<Option<Duration>>,
    /// Measured only when the launch was asked to idle.
    pub memory: Option<Vec<ProcessMemory>>,
}

/// Launches `program` in `home` on a bus of its own, times its first frame and, with `idle`,
/// measures its processes' memory after that long.
async fn launch(program: &Path, home: &Home, idle: Option<Duration>) -> Result<Launch, Failure> {
    let app = App::launch_program_with_env(home, Bus::start()?, program, &[ANY_GATEWAY_PORT]).await?;
    let stages = ready_stages(&app).await?;
    let name = program.file_name().ok_or("the program has no file name")?.to_string_lossy();
    let variable = format!("BECKON_DATA_DIR={}", home.data_dir().display());
    let process = procs::find(&name, &variable).ok_or_else(|| format!("cannot find the process of {name}"))?;
    let began = procs::started_at(&process).ok_or("cannot read the app's start time")?;
    let began_ms = began.duration_since(UNIX_EPOCH)?.as_secs_f64() * 1000.0;
    let since_start = |at: f64| Duration::from_secs_f64(((at - began_ms) / 1000.0).max(0.0));
    let stages: Vec<Option<Duration>> = stages.into_iter().map(|at| at.map(since_start)).collect();
    let to_ready = stages.last().copied().flatten().ok_or("the page has no ready mark")?;
    let memory = match idle {
        Some(idle) => {
            tokio::time::sleep(idle).await;
            Some(memory::of_tree(&process))
        }
        None => None,
    };
    app.quit().await?;
    Ok(Launch { to_ready, stages, memory })
}

/// What is launched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Beckon with this many questions pending.
    Beckon { pending: usize },
    /// The empty Tauri app.
    EmptyApp,
}

impl Kind {
    /// Whether every launch idles and measures memory (the two compared by the memory goal);
    /// the others measure only in the last round.
    fn idles_every_run(self) -> bool {
        matches!(self, Kind::Beckon { pending: 0 } | Kind::EmptyApp)
    }
}

/// The launches of one app in one home.
pub struct Subject {
    pub label: String,
    pub kind: Kind,
    program: PathBuf,
    home: Home,
    pub launches: Vec<Launch>,
}

impl Subject {
    /// Median, fastest and slowest time to the first frame, in milliseconds.
    pub fn first_frame_ms(&self) -> (u128, u128, u128) {
        let mut times: Vec<u128> = self.launches.iter().map(|l| l.to_ready.as_millis()).collect();
        times.sort_unstable();
        (times[times.len() / 2], times[0], times[times.len() - 1])
    }

    /// The median time after the process started at which each of [`STAGES`] was reached, in
    /// milliseconds, over the launches that timed it.
    pub fn stages_ms(&self) -> Vec<Option<u128>> {
        (0..STAGES.len())
            .map(|stage| {
                let mut times: Vec<u128> = self
                    .launches
                    .iter()
                    .filter_map(|l| l.stages.get(stage).copied().flatten())
                    .map(|d| d.as_millis())
                    .collect();
                times.sort_unstable();
                times.get(times.len() / 2).copied()
            })
            .collect()
    }

    /// The idle memory of every launch that idled, least total PSS first.
    fn idled(&self) -> Vec<&[ProcessMemory]> {
        let mut idled: Vec<&[ProcessMemory]> = self.launches.iter().filter_map(|l| l.memory.as_deref()).collect();
        idled.sort_by_key(|processes| memory::totals(processes).1);
        idled
    }

    /// The idle memory of the launch with the median total PSS (the upper one of an even count).
    pub fn median_memory(&self) -> &[ProcessMemory] {
        let idled = self.idled();
        idled.get(idled.len() / 2).copied().unwrap_or_default()
    }

    /// Each idle launch's total PSS in bytes, least first.
    pub fn pss_runs(&self) -> Vec<u64> {
        self.idled().into_iter().map(|processes| memory::totals(processes).1).collect()
    }
}

/// Every subject's launches.
pub struct Frames {
    pub subjects: Vec<Subject>,
}

impl Frames {
    fn subject(&self, kind: Kind) -> Result<&Subject, Failure> {
        self.subjects.iter().find(|s| s.kind == kind).ok_or_else(|| format!("no launches of {kind:?}").into())
    }

    /// Beckon with nothing pending.
    pub fn nothing_pending(&self) -> Result<&Subject, Failure> {
        self.subject(Kind::Beckon { pending: 0 })
    }

    /// The empty Tauri app.
    pub fn empty_app(&self) -> Result<&Subject, Failure> {
        self.subject(Kind::EmptyApp)
    }

    /// Beckon with questions pending, and how many.
    pub fn loaded(&self) -> impl Iterator<Item = (usize, &Subject)> {
        self.subjects.iter().filter_map(|s| match s.kind {
            Kind::Beckon { pending } if pending > 0 => Some((pending, s)),
            Kind::Beckon { .. } | Kind::EmptyApp => None,
        })
    }
}

/// Launches each of `lineup` `runs` times in turns; the launches that idle do for `idle`.
pub async fn measure(lineup: Vec<(String, Kind, PathBuf)>, runs: usize, idle: Duration) -> Result<Frames, Failure> {
    let mut subjects = Vec::new();
    for (label, kind, program) in lineup {
        let home = Home::new()?;
        if let Kind::Beckon { pending } = kind {
            let seeding = Instant::now();
            seed::pending(&home, pending).await?;
            if pending > 0 {
                eprintln!("seeded {pending} pending questions in {:.1} s", seeding.elapsed().as_secs_f64());
            }
        }
        subjects.push(Subject { label, kind, program, home, launches: Vec::new() });
    }
    for round in 0..runs {
        for subject in &mut subjects {
            let idles = subject.kind.idles_every_run() || round + 1 == runs;
            let launch = launch(&subject.program, &subject.home, idles.then_some(idle)).await?;
            let pss =
                launch.memory.as_deref().map(|m| format!(", {:.1} MiB PSS idle", memory::mib(memory::totals(m).1)));
            eprintln!(
                "run {}/{runs}: {}: first frame after {} ms{}",
                round + 1,
                subject.label,
                launch.to_ready.as_millis(),
                pss.unwrap_or_default()
            );
            subject.launches.push(launch);
        }
    }
    Ok(Frames { subjects })
}

/// The empty Tauri app's median first frame over `runs` launches, in milliseconds, for when
/// the clicks run without the frames part.
pub async fn empty_app_first_frame(program: &Path, runs: usize) -> Result<u128, Failure> {
    let frames =
        measure(vec![("empty Tauri app".to_owned(), Kind::EmptyApp, program.to_owned())], runs, Duration::ZERO).await?;
    Ok(frames.empty_app()?.first_frame_ms().0)
}
