//! Keys of the `homa.conf` files that articles about Homa publish, which are not HomaModule's
//! parameters. [`Config::with_overrides_noted`] translates each into the parameter it stands
//! for, with a note saying so, or refuses it and names the parameters to set instead.
//!
//! - `log_level = 0..3`: a number for the engine's log level (0 error, 1 warn, 2 info,
//!   3 debug); names are Homa's own and pass unchanged.
//! - `nack_timeout_us`: the silence before a receiver asks for lost bytes again, which
//!   is Homa's `resend_ticks`, counted in ticks of `tick_usecs`.
//! - `max_credits`: refused. Homa bounds the bytes granted and not yet received by `window`
//!   per message and by `max_incoming` over all of them; which one the article meant is not
//!   knowable.

use super::config::invalid;
use super::{Config, ConfigError};

const LEVELS: [&str; 4] = ["error", "warn", "info", "debug"];

/// Rewrites the article keys of `table` into Homa's, over `base`; returns a note per key.
pub(super) fn translate(
    table: &mut toml::Table,
    base: &Config,
) -> Result<Vec<String>, ConfigError> {
    let mut notes = Vec::new();
    if let Some(v) = table.get("max_credits") {
        return Err(invalid(
            "max_credits",
            v,
            "no value: it is not a Homa parameter; set `window` (bytes granted ahead per \
             message) or `max_incoming` (granted and not received over all messages)",
        ));
    }
    if let Some(toml::Value::Integer(n)) = table.get("log_level") {
        let n = *n;
        let level = usize::try_from(n)
            .ok()
            .and_then(|i| LEVELS.get(i))
            .ok_or_else(|| invalid("log_level", n, "0-3 (error, warn, info, debug) or a name"))?;
        notes.push(format!(
            "log_level = {n} read as \"{level}\" (0 error, 1 warn, 2 info, 3 debug)"
        ));
        table.insert("log_level".into(), toml::Value::String((*level).into()));
    }
    if let Some(v) = table.remove("nack_timeout_us") {
        if table.contains_key("resend_ticks") {
            return Err(invalid(
                "nack_timeout_us",
                &v,
                "not with `resend_ticks` too: they are the same parameter",
            ));
        }
        let us = v
            .as_integer()
            .and_then(|us| u64::try_from(us).ok())
            .filter(|&us| us > 0)
            .ok_or_else(|| invalid("nack_timeout_us", &v, "a positive number of microseconds"))?;
        let tick = match table.get("tick_usecs") {
            Some(t) => t
                .as_integer()
                .and_then(|t| u64::try_from(t).ok())
                .filter(|&t| t > 0)
                .ok_or_else(|| invalid("tick_usecs", t, "a positive number of microseconds"))?,
            None => u64::from(base.tick_usecs.max(1)),
        };
        let ticks = us.div_ceil(tick);
        let ticks_i64 = i64::try_from(ticks).unwrap_or(i64::MAX);
        notes.push(format!(
            "nack_timeout_us = {us} is Homa's resend_ticks: {ticks} ticks of {tick} us"
        ));
        table.insert("resend_ticks".into(), toml::Value::Integer(ticks_i64));
    }
    Ok(notes)
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn with_overrides_noted__reads_the_articles_homa_conf() {
        let text = "max_overcommit = 4\nnack_timeout_us = 5000\nlog_level = 1\n";
        let (c, notes) = Config::default().with_overrides_noted(text).unwrap();
        assert_eq!(c.max_overcommit, 4);
        assert_eq!(c.resend_ticks, 5, "5,000 us in ticks of 1,000 us");
        assert_eq!(c.log_level, "warn");
        assert_eq!(
            notes,
            [
                "log_level = 1 read as \"warn\" (0 error, 1 warn, 2 info, 3 debug)",
                "nack_timeout_us = 5000 is Homa's resend_ticks: 5 ticks of 1000 us",
            ]
        );
        // The file's own tick counts, rounded up.
        let (c, _) = Config::default()
            .with_overrides_noted("tick_usecs = 300\nnack_timeout_us = 1000\ntimeout_ticks = 40")
            .unwrap();
        assert_eq!(c.resend_ticks, 4);
        // Homa's own names pass without notes.
        let (c, notes) = Config::default()
            .with_overrides_noted("log_level = \"debug\"")
            .unwrap();
        assert_eq!((c.log_level.as_str(), notes.len()), ("debug", 0));
    }

    #[test]
    fn with_overrides_noted__refuses_what_has_no_single_meaning() {
        let e = |text: &str| {
            Config::default()
                .with_overrides_noted(text)
                .unwrap_err()
                .to_string()
        };
        let credits = e("max_credits = 65536");
        assert!(credits.contains("`max_credits`"), "{credits}");
        assert!(credits.contains("max_incoming"), "{credits}");
        assert!(e("log_level = 7").contains("0-3"));
        assert!(e("nack_timeout_us = 0").contains("positive"));
        assert!(e("nack_timeout_us = 5000\nresend_ticks = 2").contains("same parameter"));
        // Strict loading still refuses them.
        assert!(
            Config::default()
                .with_overrides("nack_timeout_us = 5000")
                .is_err()
        );
    }
}
