#![allow(non_snake_case)]

use super::*;

#[test]
fn matrix__full_crosses_workloads_loads_and_losses_then_impairments_and_incast() {
    for (engine, senders) in [(StressEngine::Model, 64), (StressEngine::Rtl, 16)] {
        let cases = matrix(engine, Scope::Full, Preset::HomaModule);
        assert_eq!(cases.len(), 5 * 4 * 4 + 5 + 1);
        for w in WORKLOADS {
            for load in LOADS {
                for loss in LOSSES {
                    assert!(cases.iter().any(|c| c.workload == w
                        && c.load == load
                        && c.loss == loss
                        && c.traffic == Traffic::Uniform
                        && c.duplicate == 0.0));
                }
            }
        }
        assert_eq!(
            cases
                .iter()
                .filter(|c| c.duplicate > 0.0 && c.reorder > 0.0)
                .count(),
            5
        );
        assert_eq!(cases.last().unwrap().traffic, Traffic::Incast { senders });
        assert!(cases.iter().all(|c| c.engine == engine));
    }
}

#[test]
fn config__incast_offers_the_load_at_the_receiver() {
    let case = matrix(StressEngine::Model, Scope::Quick, Preset::HomaModule)
        .pop()
        .unwrap();
    let c = case.config(Watchdog::default()).unwrap();
    assert_eq!(c.topology.num_hosts(), 65);
    assert_eq!(c.pattern, Pattern::Incast { target: 0 });
    assert!((c.load * 64.0 - case.load).abs() < 1e-12);
    let bad = Case {
        workload: "w9".into(),
        ..case
    };
    assert!(
        bad.config(Watchdog::default())
            .unwrap_err()
            .to_string()
            .contains("w9")
    );
}

/// A passing run, then the same report with the faults each check is there to catch.
#[test]
fn check__passes_a_clean_run_and_names_each_fault() {
    let case = Case {
        messages: 200,
        ..matrix(StressEngine::Model, Scope::Quick, Preset::HomaModule)[0].clone()
    };
    let limits = Limits::default();
    let out = case.run(&limits, &mut |_| {}).unwrap();
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    let config = case.config(Watchdog::default()).unwrap();
    let (hosts, unsched, incoming) = (
        16,
        u64::from(config.homa.unsched_bytes),
        u64::from(config.homa.max_incoming),
    );
    type Fault = (&'static str, fn(&mut Report));
    let faults: [Fault; 6] = [
        ("wrong bytes", |r| r.payload_errors = 1),
        ("accounted", |r| r.in_flight += 1),
        ("failed with no packet lost", |r| {
            r.rpcs_failed += 1;
            r.completed -= 1;
        }),
        ("control packets", |r| {
            let data = r.sent("DATA");
            let resend = r.packets_by_type.iter_mut().find(|(t, _)| *t == "RESEND");
            resend.unwrap().1 = data;
        }),
        ("switch queue", |r| {
            r.fabric.max_switch_queue_bytes = u64::MAX / 2
        }),
        ("did not complete", |r| {
            r.stopped = Some(crate::cluster::Stopped {
                reason: crate::cluster::StopReason::NothingPending,
                at_ps: 0,
                in_flight: 0,
                stuck: Vec::new(),
            })
        }),
    ];
    for (what, fault) in faults {
        let mut r = out.report.clone();
        fault(&mut r);
        let failures = check(&r, &limits, hosts, unsched, incoming);
        assert!(
            failures.len() == 1 && failures[0].contains(what),
            "{what}: {failures:?}"
        );
    }
}

/// The model's quick subset, as `homa-nic stress --quick --engine model` runs it.
#[test]
fn run__quick_model_matrix_passes_every_check() {
    let limits = Limits::default();
    for case in matrix(StressEngine::Model, Scope::Quick, Preset::HomaModule) {
        let out = case.run(&limits, &mut |_| {}).unwrap();
        assert!(out.failures.is_empty(), "{case}: {:?}", out.failures);
        assert_eq!(out.report.messages, case.messages, "{case}");
    }
}
