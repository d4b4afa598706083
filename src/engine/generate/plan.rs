//! What one click on Generate makes: usually one run of the form's settings; for the `paper` topology, the
//! paper's layouts (baseline, forgetting, chain and the `f,f,[f,f],[f,f],f,f` multichain) for the chosen family,
//! or for each of math, GSM and Python when the family is `all`. Each run is an ordinary form, so its samples
//! link, download and compare with the CLI like any other run.

use super::form::GenerateForm;

/// The topology value that asks for the paper's layouts.
pub const PAPER: &str = "paper";
/// The family value that asks for every family separately (with `paper`).
pub const ALL_FAMILIES: &str = "all";

/// The paper's layouts, in the order the paper lists them.
pub const PAPER_TOPOLOGIES: [&str; 4] = ["baseline", "forgetting", "chain", "multichain"];

/// The runs of a form, in order.
pub fn plan(form: &GenerateForm) -> Vec<GenerateForm> {
    if form.topology != PAPER {
        return vec![form.clone()];
    }
    let families: Vec<&str> = match form.family.as_str() {
        ALL_FAMILIES | "mixed" => vec!["math", "gsm", "python"],
        one => vec![one],
    };
    let mut runs = Vec::new();
    for family in families {
        for topology in PAPER_TOPOLOGIES {
            // The release has no GSM multichain: no word problem outputs the list a branch block splits.
            if family == "gsm" && topology == "multichain" {
                continue;
            }
            runs.push(GenerateForm {
                topology: topology.into(),
                family: family.into(),
                samples_per_target: form.samples_per_target,
                seed: form.seed,
                ..GenerateForm::default()
            });
        }
    }
    runs
}

/// A short label for a run (`math chain`).
pub fn label(form: &GenerateForm) -> String {
    format!("{} {}", form.family, form.topology)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_form_is_one_run() {
        let form = GenerateForm { topology: "chain".into(), length: 9, ..GenerateForm::default() };
        assert_eq!(plan(&form), vec![form]);
    }

    #[test]
    fn the_paper_preset_expands_to_the_four_layouts_per_family() {
        let form = GenerateForm { topology: PAPER.into(), family: "math".into(), samples_per_target: 16, seed: 5, ..GenerateForm::default() };
        let runs = plan(&form);
        assert_eq!(runs.iter().map(label).collect::<Vec<_>>(), ["math baseline", "math forgetting", "math chain", "math multichain"]);
        assert!(runs.iter().all(|r| r.samples_per_target == 16 && r.seed == 5 && r.length == 4 && r.distractors == 3));
        let all = plan(&GenerateForm { family: ALL_FAMILIES.into(), ..form });
        assert_eq!(all.len(), 11, "four layouts for math and python, three for gsm");
        assert!(!all.iter().any(|r| r.family == "gsm" && r.topology == "multichain"));
        assert!(all.iter().all(|r| r.to_config().is_ok()), "every run is a valid configuration");
    }
}
