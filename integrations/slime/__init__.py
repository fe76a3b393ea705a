"""slime integration: a rollout function that trains on batches leased from the control plane.

Use with slime's ``--rollout-function-path integrations.slime.rollout.generate_rollout``; the job's
environment carries CONTROL_PLANE_URL, CONTROL_PLANE_API_KEY and RUN_ID (the control plane sets them).
"""
