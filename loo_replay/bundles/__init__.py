"""Evidence bundles: an audit packed with its logs and rulesets, and verified by re-running
it (docs/evidence.md).  Apart from ``evidence/`` (seals, and the bag, statement, envelope
and archive this package writes and reads), which the readers and the run layer use: a
bundle runs the audit, the fairness tests and the collusion screen, above them."""
