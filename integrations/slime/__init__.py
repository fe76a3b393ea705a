"""slime integration: a rollout function that trains on batches leased from the control plane.

Use with slime's ``--rollout-function-path integrations.slime.rollout.generate_rollout``; the job's
environment carries CONTROL_PLANE_URL, RUN_ID and OPENCLAW_API_KEY_FILE (the run's key, in the job's working_dir
package) or, for a local process, CONTROL_PLANE_API_KEY (the control plane sets them).
"""
