//! Wall-clock time per compiler phase, for `--timing`.

use std::time::{Duration, Instant};

pub struct PhaseTimer {
    enabled: bool,
    last: Instant,
    phases: Vec<(&'static str, Duration)>,
}

impl PhaseTimer {
    pub fn new(enabled: bool) -> Self {
        PhaseTimer {
            enabled,
            last: Instant::now(),
            phases: Vec::new(),
        }
    }

    /// Ends the phase that began at the previous lap (or at creation).
    pub fn lap(&mut self, phase: &'static str) {
        let now = Instant::now();
        self.phases.push((phase, now - self.last));
        self.last = now;
    }

    /// Prints one line per phase and the total to standard error, if enabled.
    pub fn report(&self) {
        if !self.enabled {
            return;
        }
        let total: Duration = self.phases.iter().map(|(_, d)| *d).sum();
        for (phase, d) in &self.phases {
            eprintln!("timing: {:>9.3} ms  {phase}", d.as_secs_f64() * 1e3);
        }
        eprintln!("timing: {:>9.3} ms  total", total.as_secs_f64() * 1e3);
    }
}
