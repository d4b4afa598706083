//! What kind of sample a dataset or results record is: its topology and its target family, read from the keys
//! the reference layout gives each topology. The one place that infers them; `inspect`, the metrics and
//! the drivers' per-topology defaults all ask here.

use serde_json::Value as Json;

use super::SampleRecord;

/// The topology of a sample: `baseline`, `forgetting`, `chain`, `multichain` or `custom`.
pub fn topology_of(sample: &Json) -> &'static str {
    super::record::Topology::of(sample).as_str()
}

/// The target family of a sample: the declared `target_family`, else what its task name and fields show
/// (`GSM_…` names are word problems, `extra_inputs` or a chain target with a `task_id` mark Python), else the
/// file's `mode` (`math_chain`, `gsm`, …), else `math`: the reference's operators carry no marker. `unknown`
/// only for a record without a task name.
pub fn family_of(sample: &Json, mode: &str) -> String {
    family_in(&SampleRecord::parse(sample), mode)
}

/// [`family_of`] a record already read.
pub fn family_in(record: &SampleRecord, mode: &str) -> String {
    if let Some(declared) = record.target_family.as_ref().filter(|_| !record.jsonl) {
        return declared.clone();
    }
    let name = record.task_name.as_deref().unwrap_or("");
    let family = if name.starts_with("GSM_") || name.starts_with("gsm_") {
        "gsm"
    } else if record.python_marks {
        "python"
    } else if let Some(from_mode) = ["gsm", "python", "math"].into_iter().find(|f| mode.starts_with(f)) {
        from_mode
    } else if name.is_empty() {
        "unknown"
    } else {
        "math"
    };
    family.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn topology_comes_from_the_topology_key() {
        assert_eq!(topology_of(&json!({"custom_dag": {}})), "custom");
        assert_eq!(topology_of(&json!({"multi_chain": {}, "chain": {}})), "multichain");
        assert_eq!(topology_of(&json!({"chain": {}})), "chain");
        assert_eq!(topology_of(&json!({"forgetting": {}})), "forgetting");
        assert_eq!(topology_of(&json!({"prompt": "x"})), "baseline");
    }

    #[test]
    fn family_prefers_the_declaration_then_names_fields_and_mode() {
        assert_eq!(family_of(&json!({"target_family": "python", "task_name": "GSM_1"}), "math"), "python");
        assert_eq!(family_of(&json!({"task_name": "GSM_0007.json"}), "agent"), "gsm");
        assert_eq!(family_of(&json!({"task_name": "f", "extra_inputs": {}}), ""), "python");
        assert_eq!(family_of(&json!({"task_name": "f", "chain": {"target": {"task_id": 3}}}), ""), "python");
        assert_eq!(family_of(&json!({"task_name": "x"}), "gsm_chain"), "gsm");
        assert_eq!(family_of(&json!({"task_name": "ConvolutionTask"}), "agent"), "math");
        assert_eq!(family_of(&json!({"task_name": "Task7"}), "agent"), "math");
        assert_eq!(family_of(&json!({"prompt": "p"}), ""), "unknown");
    }
}
