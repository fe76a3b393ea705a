// Generated from /api/openapi.json by tests/integration/openapiClient.test.ts (-u to refresh).
export interface paths {
  "/api/v1/experiments": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List experiments
     * @description Requires the 'read' permission.
     */
    get: operations["experiments.list"];
    put?: never;
    /**
     * Create an experiment
     * @description Requires the 'write' permission.
     */
    post: operations["experiments.create"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/config-diff": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Config diff between two experiments or runs
     * @description Requires the 'read' permission.
     */
    get: operations["experiments.diff"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/runs": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List runs
     * @description Requires the 'read' permission.
     */
    get: operations["runs.list"];
    put?: never;
    /**
     * Start a run of an experiment
     * @description Requires the 'write' permission.
     */
    post: operations["runs.start"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/gpu/track-jobs/preview": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The slime job of an agentic track (ReTool or terminal-rl, groups of n, step_wise with a PRM) as the fork's scripts define it: the command to run on your Ray cluster and the GPUs per role
     * @description Requires the 'read' permission.
     */
    post: operations["runOps.trackJob"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List users
     * @description Requires the 'admin' permission.
     */
    get: operations["users.list"];
    put?: never;
    /**
     * Create a user
     * @description Requires the 'admin' permission.
     */
    post: operations["users.create"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/api-keys": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List API keys (never their secrets)
     * @description Requires the 'admin' permission.
     */
    get: operations["apiKeys.list"];
    put?: never;
    /**
     * Create an API key (the secret is returned once)
     * @description Requires the 'admin' permission.
     */
    post: operations["apiKeys.create"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/policy-versions": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Policy versions of an experiment (newest first) and the one served
     * @description Requires the 'read' permission.
     */
    get: operations["policyVersions.list"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/policy-versions/promote": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Serve a policy version (the previous one is retired); proxies switch at once
     * @description Requires the 'write' permission.
     */
    post: operations["policyVersions.promote"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/policy-versions/rollback": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Roll back the served version (to its parent by default, 0 = base checkpoint)
     * @description Requires the 'write' permission.
     */
    post: operations["policyVersions.rollback"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sessions": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List recorded sessions
     * @description Requires the 'read' permission.
     */
    get: operations["sessions.list"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/turns": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List turns
     * @description Requires the 'read' permission.
     */
    get: operations["turns.list"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/labels": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List labels
     * @description Requires the 'read' permission.
     */
    get: operations["labels.list"];
    put?: never;
    /**
     * Relabel a turn (reviewer label; feeds training)
     * @description Requires the 'review' permission.
     */
    post: operations["labels.create"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/audit/relabels": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Audit log of relabels (effective training label before and after)
     * @description Requires the 'read' permission.
     */
    get: operations["labels.audit"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/review/queues": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List review queues with their pending / done / disputed counts
     * @description Requires the 'read' permission.
     */
    get: operations["review.queues"];
    put?: never;
    /**
     * Create a review queue (turn filter, assignees, reviewers per item, lock TTL)
     * @description Requires the 'write' permission.
     */
    post: operations["review.createQueue"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/metrics": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Metric points of a run or experiment
     * @description Requires the 'read' permission.
     */
    get: operations["metrics.points"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/metrics/series": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Series bucketed to at most maxPoints points each (min/max/last/mean per bucket); x by step or time
     * @description Requires the 'read' permission.
     */
    get: operations["metrics.series"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/metrics/catalog": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The metric series of an experiment, with counts and latest values
     * @description Requires the 'read' permission.
     */
    get: operations["metrics.catalog"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/simulation": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Simulated users of every active experiment: settings, live stats, and the global switch
     * @description Requires the 'read' permission.
     */
    get: operations["simulation.list"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/simulation/global": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Turn all simulated traffic on or off (SIMULATE=0 in the workers' environment wins)
     * @description Requires the 'admin' permission.
     */
    post: operations["simulation.setGlobal"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/fleet": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Queue depths and lag, judge backlog, and each live run's training backlog and GPU plan
     * @description Requires the 'read' permission.
     */
    get: operations["fleet.overview"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/eval-sets": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Eval sets of an experiment with their versions
     * @description Requires the 'read' permission.
     */
    get: operations["evaluation.sets"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/eval-sets/upload": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Upload JSONL as the next version of a named eval set (400 names every bad line; nothing is written)
     * @description Requires the 'write' permission.
     */
    post: operations["evaluation.upload"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/eval-sets/add-turns": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Add recorded turns (their requests as prompts) to a named eval set, as its next version
     * @description Requires the 'write' permission.
     */
    post: operations["evaluation.addTurns"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/eval-sets/persona": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * (Re)generate the persona eval set: the simulated personas' held-out questions
     * @description Requires the 'write' permission.
     */
    post: operations["evaluation.personaSet"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/evaluations": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Per-version eval score (mean, 95% CI, cost) next to training reward; held-back candidates with reasons
     * @description Requires the 'read' permission.
     */
    get: operations["evaluation.overview"];
    put?: never;
    /**
     * Evaluate a version (again) on the current eval set version
     * @description Requires the 'write' permission.
     */
    post: operations["evaluation.request"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/evaluations/task-pass-rates": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * An environment experiment's held-out pass@1 (Wilson 95% interval; the promotion gate's score) and pass@k per policy version
     * @description Requires the 'read' permission.
     */
    get: operations["evaluation.taskPassRates"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/evaluations/compare": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Two versions side by side on the same prompts: replies and grades
     * @description Requires the 'read' permission.
     */
    get: operations["evaluation.compare"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/evaluations/learning": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Is it learning? A verdict from judged first replies against the base and the held-out pass rate (the rule is returned), with per-version numbers and sessions until a stable effect
     * @description Requires the 'read' permission.
     */
    get: operations["evaluation.learning"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/evaluations/agreement": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Judge–human agreement per judge version: accuracy, Cohen's κ, confusion matrix, disagreeing turns
     * @description Requires the 'read' permission.
     */
    get: operations["evaluation.agreement"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/environments": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Environments of an experiment
     * @description Requires the 'read' permission.
     */
    get: operations["environments.list"];
    put?: never;
    /**
     * Create an environment: sandbox provider, limits, network policy, the tools it offers
     * @description Requires the 'write' permission.
     */
    post: operations["environments.create"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/task-sets": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Task sets of an experiment
     * @description Requires the 'read' permission.
     */
    get: operations["taskSets.list"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/task-sets/import": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Import tool-call JSONL or a Harbor archive as the next version (400 names the bad file and field)
     * @description Requires the 'write' permission.
     */
    post: operations["taskSets.import"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/episodes": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Episodes of an experiment, newest first (by task, environment, launch or status)
     * @description Requires the 'read' permission.
     */
    get: operations["episodes.list"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/episodes/launch": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Queue n episodes of each task of a split (one GRPO group per task) for workers/episodes
     * @description Requires the 'write' permission.
     */
    post: operations["episodes.launch"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/standing-launches": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Standing launches of an experiment, newest first, with their groups launched and in flight
     * @description Requires the 'read' permission.
     */
    get: operations["standingLaunches.list"];
    put?: never;
    /**
     * Keep launching while training: keep up to maxGroupsInFlight groups of the train split going
     * @description Requires the 'write' permission.
     */
    post: operations["standingLaunches.start"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/experiments/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get an experiment by id or slug
     * @description Requires the 'read' permission.
     */
    get: operations["experiments.get"];
    put?: never;
    post?: never;
    /**
     * Delete an experiment that holds no data (else 409: archive it)
     * @description Requires the 'write' permission.
     */
    delete: operations["experiments.delete"];
    options?: never;
    head?: never;
    /**
     * Edit an experiment
     * @description Requires the 'write' permission.
     */
    patch: operations["experiments.update"];
    trace?: never;
  };
  "/api/v1/experiments/{id}/clone": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Clone an experiment
     * @description Requires the 'write' permission.
     */
    post: operations["experiments.clone"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/experiments/{id}/archive": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Archive (or unarchive) an experiment
     * @description Requires the 'write' permission.
     */
    post: operations["experiments.archive"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/runs/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a run
     * @description Requires the 'read' permission.
     */
    get: operations["runs.get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/runs/{id}/actions": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Stop, pause or resume a run
     * @description Requires the 'write' permission.
     */
    post: operations["runs.act"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/experiments/{experimentId}/launch-preview": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The exact trainer command a run of this experiment would launch (secrets hidden), or why it cannot
     * @description Requires the 'read' permission.
     */
    get: operations["runOps.launchPreview"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/runs/{id}/logs": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The last `tail` lines of the run's trainer logs (Ray job logs, or the saved output of local trainer processes)
     * @description Requires the 'read' permission.
     */
    get: operations["runOps.logs"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/runs/{id}/batches": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Recent batch leases of a run (active, expired, acknowledged)
     * @description Requires the 'read' permission.
     */
    get: operations["runOps.leases"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/runs/{id}/batches/lease": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Lease up to `size` ready samples (token ids, loss mask, reward, behaviour/teacher log-probs, policy versions) until they expire; `leaseId` null when fewer than `minSize` are ready. A per-user experiment's lease holds one end user's samples (`endUserId`), picked by fair share, and names that user's served adapter version and latest version number (`adapter`: a restarted trainer resumes from the one and numbers past the other)
     * @description Requires the 'trainer' permission.
     */
    post: operations["batches.lease"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/runs/{id}/batches/lease-episodes": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Lease up to `groups` finished GRPO groups of the experiment's episodes (each episode's steps with their turns' tokens, log-probs and step scores) until they expire; acknowledged like a batch; `leaseId` null when fewer than `minGroups` are ready
     * @description Requires the 'trainer' permission.
     */
    post: operations["batches.leaseEpisodes"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/runs/{id}/report": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Trainer heartbeat: metrics, weight version, the rollout engine's URL (the proxy forwards there), the PRM routers (the judge scores there), lease renewals; answers whether to stop
     * @description Requires the 'trainer' permission.
     */
    post: operations["batches.report"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Change a user's role, name, password or disabled flag
     * @description Requires the 'admin' permission.
     */
    patch: operations["users.update"];
    trace?: never;
  };
  "/api/v1/api-keys/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke an API key
     * @description Requires the 'admin' permission.
     */
    delete: operations["apiKeys.revoke"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/policy-versions/{version}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One policy version with the training step that made it
     * @description Requires the 'read' permission.
     */
    get: operations["policyVersions.get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sessions/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A session with its turns, by our id or the client's session id (experimentId picks one where several experiments use it)
     * @description Requires the 'read' permission.
     */
    get: operations["sessions.get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sessions/{sessionId}/conversation": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A page of a session's turns with messages, judgments, labels and training use
     * @description Requires the 'read' permission.
     */
    get: operations["sessions.conversation"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/turns/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A turn with its full request, judgments, votes and labels
     * @description Requires the 'read' permission.
     */
    get: operations["turns.get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/review/queues/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A review queue
     * @description Requires the 'read' permission.
     */
    get: operations["review.queue"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Edit a review queue (assignees, reviewers per item, archive)
     * @description Requires the 'write' permission.
     */
    patch: operations["review.updateQueue"];
    trace?: never;
  };
  "/api/v1/review/queues/{queueId}/turns": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Add turns to a review queue
     * @description Requires the 'review' permission.
     */
    post: operations["review.addTurns"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/review/queues/{queueId}/next": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Fetch and lock the next item (disputed first, skipping what you have seen); null when none is left
     * @description Requires the 'review' permission.
     */
    post: operations["review.next"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/review/items/{itemId}/skip": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Skip an item (not offered to you again) and release its lock
     * @description Requires the 'review' permission.
     */
    post: operations["review.skip"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/review/items/{itemId}/release": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Release your lock on an item
     * @description Requires the 'review' permission.
     */
    post: operations["review.release"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/review/items/{itemId}/submit": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Accept, fix & accept, or reject the item (writes an audited reviewer label)
     * @description Requires the 'review' permission.
     */
    post: operations["review.submit"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/simulation/experiments/{experimentId}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Start/stop an experiment's simulated users or change their rate, concurrency, personas, seed or turn limit
     * @description Requires the 'write' permission.
     */
    patch: operations["simulation.update"];
    trace?: never;
  };
  "/api/v1/simulation/experiments/{experimentId}/progress": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Judged reward per policy version (mean judge score of the main turns each version served)
     * @description Requires the 'read' permission.
     */
    get: operations["simulation.progress"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/eval-sets/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One eval set version with its items (latest by default)
     * @description Requires the 'read' permission.
     */
    get: operations["evaluation.set"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/eval-sets/{id}/jsonl": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Download an eval set version as JSONL (the upload format)
     * @description Requires the 'read' permission.
     */
    get: operations["evaluation.download"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/evaluations/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One evaluation with every reply, its seed and its grade
     * @description Requires the 'read' permission.
     */
    get: operations["evaluation.get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/environments/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One environment with its sandbox's health and its episodes by status
     * @description Requires the 'read' permission.
     */
    get: operations["environments.get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/task-sets/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One task set version (latest by default) with its tasks, split and oracle status
     * @description Requires the 'read' permission.
     */
    get: operations["taskSets.get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/task-sets/{taskSetId}/oracle": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Run every task's oracle (its solution, then nothing) and record verified / flaky / impossible
     * @description Requires the 'write' permission.
     */
    post: operations["taskSets.oracle"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/episodes/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One episode with its steps: action, observation, recorded turn, PRM votes, step advantage
     * @description Requires the 'read' permission.
     */
    get: operations["episodes.get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/episodes/launches/{launchId}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A launch's pass@1 and pass@k (per task and over tasks, with 95% intervals), failures, truncation
     * @description Requires the 'read' permission.
     */
    get: operations["episodes.launchSummary"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/standing-launches/{id}/stop": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Stop a standing launch (its groups already queued or running finish)
     * @description Requires the 'write' permission.
     */
    post: operations["standingLaunches.stop"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/experiments/{experimentId}/end-users": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * End users of an experiment with their adapter version, samples and reward trend
     * @description Requires the 'read' permission.
     */
    get: operations["endUsers.list"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/experiments/{experimentId}/end-users/curves": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Each end user's mean judged reward per version that served them, beside the shared policy's curve
     * @description Requires the 'read' permission.
     */
    get: operations["endUsers.curves"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/experiments/{experimentId}/end-users/train": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Train a new adapter version for every end user with enough new samples, and gate each
     * @description Requires the 'write' permission.
     */
    post: operations["endUsers.train"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/runs/{id}/batches/{leaseId}/ack": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Acknowledge a leased batch as trained at `step`: its samples train once (re-acknowledging is a no-op), a training step and policy version are recorded; a per-user lease records no policy version: its `checkpointPath` becomes the user's next version (a CANDIDATE the engine gate decides when the user has held-out turns, else served at once)
     * @description Requires the 'trainer' permission.
     */
    post: operations["batches.ack"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/episodes/{id}/screenshots/{index}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One screenshot of a GUI episode (PNG, base64): 0 after reset, k after step k - 1
     * @description Requires the 'read' permission.
     */
    get: operations["episodes.screenshot"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/experiments/{experimentId}/end-users/{endUserId}/rollback": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Roll one end user (or `*`, the shared adapter new users are served) back to the adapter version (or base) served before the current one
     * @description Requires the 'write' permission.
     */
    post: operations["endUsers.rollback"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/experiments/{experimentId}/end-users/{endUserId}/adapters": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Register an end user's adapter version as a PEFT folder that SGLang/vLLM multi-LoRA serves
     * @description Requires the 'write' permission.
     */
    post: operations["endUsers.registerAdapter"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/experiments/{experimentId}/end-users/{endUserId}/compare": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Base vs the user's served adapter, greedy, on a few of their held-out prompts (embedded policy)
     * @description Requires the 'read' permission.
     */
    post: operations["endUsers.compare"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/experiments/{experimentId}/end-users/{endUserId}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Delete an end user's adapters, turns and samples (audited)
     * @description Requires the 'write' permission.
     */
    delete: operations["endUsers.delete"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/health": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Liveness and dependency status (database, Redis, workers)
     * @description Needs no credential.
     */
    get: operations["raw:GET /api/health"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/openapi.json": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * This document
     * @description Needs no credential.
     */
    get: operations["raw:GET /api/openapi.json"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/auth/login": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign in: sets the sealed session cookie (rate-limited per address and account)
     * @description Needs no credential.
     */
    post: operations["raw:POST /api/auth/login"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/auth/logout": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign out: ends every session of the signed-in user and clears the cookie
     * @description Needs no credential.
     */
    post: operations["raw:POST /api/auth/logout"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/stream/metrics": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Server-sent events: new metric points of a run or experiment as they are written
     * @description Requires the 'read' permission (checked by the endpoint).
     */
    get: operations["raw:GET /api/stream/metrics"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/playground/chat": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Chat with an experiment's policy through its proxy (the proxy's streamed answer, relayed)
     * @description Requires the 'review' permission (checked by the endpoint).
     */
    post: operations["raw:POST /api/playground/chat"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/playground/feedback": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Feedback on a playground turn, relayed to the proxy (becomes a reviewer label)
     * @description Requires the 'review' permission (checked by the endpoint).
     */
    post: operations["raw:POST /api/playground/feedback"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/export/turns": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Export turns matching the trajectory filters as NDJSON, streamed
     * @description Requires the 'read' permission (checked by the endpoint).
     */
    get: operations["raw:GET /api/export/turns"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/import/openclaw": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Import OpenClaw JSONL (turn and/or PRM records) into an experiment (?experimentId=…); answers a report
     * @description Requires the 'write' permission (checked by the endpoint).
     */
    post: operations["raw:POST /api/import/openclaw"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: never;
  responses: {
    /** @description Invalid input: every zod issue with its field path */
    BadRequest: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": {
          error?: {
            code?: string;
            /** @enum {string} */
            reason?:
              | "invalid_input"
              | "malformed_cursor"
              | "adapter_not_servable"
              | "unauthenticated"
              | "forbidden"
              | "missing_permission"
              | "other_experiment"
              | "other_run"
              | "not_assigned"
              | "cross_origin"
              | "not_found"
              | "route_not_found"
              | "method_not_allowed"
              | "conflict"
              | "ambiguous_session"
              | "name_taken"
              | "archived"
              | "invalid_transition"
              | "run_in_progress"
              | "run_ended"
              | "not_leasable"
              | "already_reviewed"
              | "lock_lost"
              | "import_in_progress"
              | "payload_too_large"
              | "unsupported_media_type"
              | "rate_limited"
              | "sign_in_throttled"
              | "internal";
            message?: string;
            issues?: {
              path?: string;
              message?: string;
            }[];
          };
        };
      };
    };
    /** @description Error */
    Error: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        "application/json": {
          error?: {
            code?: string;
            /** @enum {string} */
            reason?:
              | "invalid_input"
              | "malformed_cursor"
              | "adapter_not_servable"
              | "unauthenticated"
              | "forbidden"
              | "missing_permission"
              | "other_experiment"
              | "other_run"
              | "not_assigned"
              | "cross_origin"
              | "not_found"
              | "route_not_found"
              | "method_not_allowed"
              | "conflict"
              | "ambiguous_session"
              | "name_taken"
              | "archived"
              | "invalid_transition"
              | "run_in_progress"
              | "run_ended"
              | "not_leasable"
              | "already_reviewed"
              | "lock_lost"
              | "import_in_progress"
              | "payload_too_large"
              | "unsupported_media_type"
              | "rate_limited"
              | "sign_in_throttled"
              | "internal";
            message?: string;
            issues?: {
              path?: string;
              message?: string;
            }[];
          };
        };
      };
    };
  };
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  "experiments.list": {
    parameters: {
      query?: {
        cursor?: string;
        limit?: number;
        search?: string;
        status?: "ACTIVE" | "ARCHIVED" | "ALL";
        method?: "grpo" | "opd" | "combine";
        sort?: "updatedAt" | "createdAt" | "name";
        order?: "asc" | "desc";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              slug: string;
              name: string;
              description: string;
              /** @enum {string} */
              status: "ACTIVE" | "ARCHIVED";
              demo: boolean;
              config: {
                /**
                 * @default combine
                 * @enum {string}
                 */
                method: "grpo" | "opd" | "combine";
                /**
                 * @default {
                 *       "kind": "embedded",
                 *       "checkpoint": "models/base"
                 *     }
                 */
                policy:
                  | {
                      /** @constant */
                      kind: "embedded";
                      /** @default models/base */
                      checkpoint: string;
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "openai";
                      /** @enum {string} */
                      loraAdapters?: "sglang" | "vllm";
                      loraMaxLoaded?: number;
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "sglang";
                      /** @enum {string} */
                      loraAdapters?: "sglang" | "vllm";
                      loraMaxLoaded?: number;
                    };
                /**
                 * @default {
                 *       "backend": {
                 *         "kind": "heuristic"
                 *       },
                 *       "votes": 3,
                 *       "temperature": 0.6,
                 *       "maxTokens": 4096,
                 *       "includeRequest": false,
                 *       "evalMode": true,
                 *       "hintSelection": "longest",
                 *       "chatTemplateKwargs": {}
                 *     }
                 */
                judge: {
                  /**
                   * @default {
                   *       "kind": "heuristic"
                   *     }
                   */
                  backend:
                    | {
                        /** @constant */
                        kind: "heuristic";
                      }
                    | {
                        /** Format: uri */
                        baseUrl: string;
                        model: string;
                        apiKey?: string;
                        /** @constant */
                        kind: "openai";
                      }
                    | {
                        /** Format: uri */
                        baseUrl: string;
                        model: string;
                        apiKey?: string;
                        /** @constant */
                        kind: "sglang";
                      }
                    | {
                        /** @constant */
                        kind: "custom";
                        modulePath: string;
                      };
                  /** @default 3 */
                  votes: number;
                  /** @default 0.6 */
                  temperature: number;
                  /** @default 4096 */
                  maxTokens: number;
                  /** @default false */
                  includeRequest: boolean;
                  /** @default true */
                  evalMode: boolean;
                  /**
                   * @default longest
                   * @enum {string}
                   */
                  hintSelection: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
                  hintM?: number;
                  chatTemplate?: string;
                  /** @default {} */
                  chatTemplateKwargs: {
                    [key: string]: string | number | boolean | null;
                  };
                };
                /**
                 * @default {
                 *       "backend": "embedded",
                 *       "gpu": {
                 *         "nodes": 1,
                 *         "gpusPerNode": 8,
                 *         "actorGpus": 4,
                 *         "rolloutGpus": 2,
                 *         "prmGpus": 2,
                 *         "rolloutGpusPerEngine": 2,
                 *         "prmGpusPerEngine": 2,
                 *         "prmTeacherGpus": 0,
                 *         "colocate": false
                 *       }
                 *     }
                 */
                trainer: {
                  /**
                   * @default embedded
                   * @enum {string}
                   */
                  backend: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
                  /** @enum {string} */
                  finetune?: "lora" | "full" | "auto";
                  /**
                   * @default {
                   *       "nodes": 1,
                   *       "gpusPerNode": 8,
                   *       "actorGpus": 4,
                   *       "rolloutGpus": 2,
                   *       "prmGpus": 2,
                   *       "rolloutGpusPerEngine": 2,
                   *       "prmGpusPerEngine": 2,
                   *       "prmTeacherGpus": 0,
                   *       "colocate": false
                   *     }
                   */
                  gpu: {
                    /** @default 1 */
                    nodes: number;
                    /** @default 8 */
                    gpusPerNode: number;
                    /** @default 4 */
                    actorGpus: number;
                    /** @default 2 */
                    rolloutGpus: number;
                    /** @default 2 */
                    prmGpus: number;
                    /** @default 2 */
                    rolloutGpusPerEngine: number;
                    /** @default 2 */
                    prmGpusPerEngine: number;
                    /** @default 0 */
                    prmTeacherGpus: number;
                    /** @default false */
                    colocate: boolean;
                  };
                  /** Format: uri */
                  rayAddress?: string;
                };
                /**
                 * @default {
                 *       "lr": 0.00001,
                 *       "epsClip": 0.2,
                 *       "epsClipHigh": 0.28,
                 *       "klCoef": 0,
                 *       "entropyCoef": 0,
                 *       "batchSize": 16,
                 *       "wOpd": 1,
                 *       "wRl": 1,
                 *       "maxStaleness": 4,
                 *       "stalePolicy": "drop",
                 *       "keepCheckpoints": 5,
                 *       "gradClip": 1,
                 *       "opdEstimator": "sampled",
                 *       "topK": 50,
                 *       "teacherSource": "base",
                 *       "advClamp": 0,
                 *       "topkDiffClip": 1,
                 *       "normalizeAdvantages": false,
                 *       "advantageGroups": "batch",
                 *       "ppoEpochs": 1,
                 *       "baseKlCoef": 0,
                 *       "opdExtrapolation": 1,
                 *       "hindsightSamples": 0,
                 *       "hindsightWeight": 0.5,
                 *       "hindsightTarget": "sampled",
                 *       "hindsightFocus": "uniform",
                 *       "hindsightMinLogprob": -0.15,
                 *       "hindsightSampleTemperature": 1,
                 *       "stylePrompts": 0,
                 *       "rememberedStyleHints": false,
                 *       "hintMemory": false,
                 *       "conversationHints": false,
                 *       "userStyleHints": false,
                 *       "dualClip": 0
                 *     }
                 */
                hyper: {
                  /** @default 0.00001 */
                  lr: number;
                  /** @default 0.2 */
                  epsClip: number;
                  /** @default 0.28 */
                  epsClipHigh: number;
                  /** @default 0 */
                  klCoef: number;
                  /** @default 0 */
                  entropyCoef: number;
                  /** @default 16 */
                  batchSize: number;
                  /** @default 1 */
                  wOpd: number;
                  /** @default 1 */
                  wRl: number;
                  /** @default 4 */
                  maxStaleness: number;
                  /**
                   * @default drop
                   * @enum {string}
                   */
                  stalePolicy: "drop" | "importance-weight";
                  /** @default 5 */
                  keepCheckpoints: number;
                  /** @default 1 */
                  gradClip: number;
                  /**
                   * @default sampled
                   * @enum {string}
                   */
                  opdEstimator: "sampled" | "topk" | "full";
                  /** @default 50 */
                  topK: number;
                  /**
                   * @default base
                   * @enum {string}
                   */
                  teacherSource: "base" | "current";
                  /** @default 0 */
                  advClamp: number;
                  /** @default 1 */
                  topkDiffClip: number;
                  /** @default false */
                  normalizeAdvantages: boolean;
                  /**
                   * @default batch
                   * @enum {string}
                   */
                  advantageGroups: "batch" | "context";
                  /** @default 1 */
                  ppoEpochs: number;
                  /** @default 0 */
                  baseKlCoef: number;
                  /** @default 1 */
                  opdExtrapolation: number;
                  /** @default 0 */
                  hindsightSamples: number;
                  /** @default 0.5 */
                  hindsightWeight: number;
                  /**
                   * @default sampled
                   * @enum {string}
                   */
                  hindsightTarget: "sampled" | "teacher";
                  /**
                   * @default uniform
                   * @enum {string}
                   */
                  hindsightFocus: "uniform" | "hint";
                  /** @default -0.15 */
                  hindsightMinLogprob: number;
                  /** @default 1 */
                  hindsightSampleTemperature: number;
                  hindsightMinGain?: number;
                  /** @default 0 */
                  stylePrompts: number;
                  /** @default false */
                  rememberedStyleHints: boolean;
                  /** @default false */
                  hintMemory: boolean;
                  /** @default false */
                  conversationHints: boolean;
                  /** @default false */
                  userStyleHints: boolean;
                  /** @default 0 */
                  dualClip: number;
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "rank": 16,
                 *       "alpha": 32
                 *     }
                 */
                lora: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 16 */
                  rank: number;
                  /** @default 32 */
                  alpha: number;
                };
                /**
                 * @default {
                 *       "defaultTurnType": "main",
                 *       "sidePatterns": [],
                 *       "contextPatterns": [],
                 *       "maxTokens": 256,
                 *       "promotion": "always",
                 *       "gate": {
                 *         "tolerance": 0.05,
                 *         "confirm": false
                 *       },
                 *       "autoRollback": {
                 *         "enabled": false,
                 *         "margin": 0.3,
                 *         "minTurns": 20
                 *       }
                 *     }
                 */
                serving: {
                  /**
                   * @default main
                   * @enum {string}
                   */
                  defaultTurnType: "main" | "side";
                  /** @default [] */
                  sidePatterns: string[];
                  /** @default [] */
                  contextPatterns: string[];
                  temperature?: number;
                  /** @default 256 */
                  maxTokens: number;
                  /**
                   * @default always
                   * @enum {string}
                   */
                  promotion: "always" | "gated";
                  /**
                   * @default {
                   *       "tolerance": 0.05,
                   *       "confirm": false
                   *     }
                   */
                  gate: {
                    /** @default 0.05 */
                    tolerance: number;
                    floor?: number;
                    set?: string;
                    /** @default false */
                    confirm: boolean;
                  };
                  /**
                   * @default {
                   *       "enabled": false,
                   *       "margin": 0.3,
                   *       "minTurns": 20
                   *     }
                   */
                  autoRollback: {
                    /** @default false */
                    enabled: boolean;
                    /** @default 0.3 */
                    margin: number;
                    /** @default 20 */
                    minTurns: number;
                  };
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "every": 1,
                 *       "grader": "persona",
                 *       "k": 2,
                 *       "temperature": 0.7,
                 *       "seed": 1,
                 *       "maxTokens": 256,
                 *       "votes": 3,
                 *       "budget": {
                 *         "maxReplyTokens": 20000,
                 *         "maxSeconds": 600
                 *       },
                 *       "agreement": {
                 *         "kappaThreshold": 0.6,
                 *         "minLabeled": 30
                 *       }
                 *     }
                 */
                evaluation: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 1 */
                  every: number;
                  set?: string;
                  /**
                   * @default persona
                   * @enum {string}
                   */
                  grader: "persona" | "judge" | "custom";
                  graderPath?: string;
                  /** @default 2 */
                  k: number;
                  /** @default 0.7 */
                  temperature: number;
                  /** @default 1 */
                  seed: number;
                  /** @default 256 */
                  maxTokens: number;
                  /** @default 3 */
                  votes: number;
                  tasks?: {
                    taskSet: string;
                    environment: string;
                    /** @default 4 */
                    k: number;
                    /** @default 4 */
                    maxSteps: number;
                  };
                  /**
                   * @default {
                   *       "maxReplyTokens": 20000,
                   *       "maxSeconds": 600
                   *     }
                   */
                  budget: {
                    /** @default 20000 */
                    maxReplyTokens: number;
                    /** @default 600 */
                    maxSeconds: number;
                  };
                  /**
                   * @default {
                   *       "kappaThreshold": 0.6,
                   *       "minLabeled": 30
                   *     }
                   */
                  agreement: {
                    /** @default 0.6 */
                    kappaThreshold: number;
                    /** @default 30 */
                    minLabeled: number;
                  };
                };
                customLossPath?: string;
                /**
                 * @default shared
                 * @enum {string}
                 */
                personalization: "shared" | "per-user";
                /**
                 * @default {
                 *       "rank": 8,
                 *       "alpha": 16,
                 *       "targets": "attention+mlp",
                 *       "advantages": "positive",
                 *       "lr": 1,
                 *       "gradClip": 0.4,
                 *       "hindsightSamples": 2,
                 *       "hindsightWeight": 3,
                 *       "hindsightMinLogprob": -0.15,
                 *       "rememberedHint": true,
                 *       "baseKlCoef": 0.03,
                 *       "baseKlScope": "samples",
                 *       "hindsightRelevance": false,
                 *       "hindsightTarget": "teacher",
                 *       "hindsightFocus": "uniform",
                 *       "hindsightTemperature": 0.7,
                 *       "stylePrompts": 32,
                 *       "newUsers": "base",
                 *       "minSamples": 16,
                 *       "gateTolerance": 0.05,
                 *       "heldOutFraction": 0.25,
                 *       "maxSamplesPerVersion": 64,
                 *       "idleAfterS": 0,
                 *       "windowUtc": null
                 *     }
                 */
                perUser: {
                  /** @default 8 */
                  rank: number;
                  /** @default 16 */
                  alpha: number;
                  /**
                   * @default attention+mlp
                   * @enum {string}
                   */
                  targets: "attention" | "attention+mlp";
                  /**
                   * @default positive
                   * @enum {string}
                   */
                  advantages: "raw" | "centered" | "positive";
                  /** @default 1 */
                  lr: number;
                  /** @default 0.4 */
                  gradClip: number;
                  /** @default 2 */
                  hindsightSamples: number;
                  /** @default 3 */
                  hindsightWeight: number;
                  /** @default -0.15 */
                  hindsightMinLogprob: number;
                  hindsightMinGain?: number;
                  /** @default true */
                  rememberedHint: boolean;
                  /** @default 0.03 */
                  baseKlCoef: number;
                  /**
                   * @default samples
                   * @enum {string}
                   */
                  baseKlScope: "samples" | "all";
                  /** @default false */
                  hindsightRelevance: boolean;
                  /**
                   * @default teacher
                   * @enum {string}
                   */
                  hindsightTarget: "sampled" | "teacher";
                  /**
                   * @default uniform
                   * @enum {string}
                   */
                  hindsightFocus: "uniform" | "hint";
                  /** @default 0.7 */
                  hindsightTemperature: number;
                  /** @default 32 */
                  stylePrompts: number;
                  /**
                   * @default base
                   * @enum {string}
                   */
                  newUsers: "base" | "shared";
                  seed?: number;
                  /** @default 16 */
                  minSamples: number;
                  /** @default 0.05 */
                  gateTolerance: number;
                  /** @default 0.25 */
                  heldOutFraction: number;
                  /** @default 64 */
                  maxSamplesPerVersion: number;
                  /** @default 0 */
                  idleAfterS: number;
                  /** @default null */
                  windowUtc: {
                    from: number;
                    to: number;
                  } | null;
                };
              };
              secretsSet: string[];
              createdAt: string;
              updatedAt: string;
              archivedAt: string | null;
              activeRun: {
                id: string;
                number: number | null;
                status: string;
              } | null;
              counts?: {
                runs: number | null;
                sessions: number | null;
                turns: number | null;
              };
            }[];
            nextCursor: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "experiments.create": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
          slug?: string;
          /** @default  */
          description?: string;
          config?: {
            /**
             * @default combine
             * @enum {string}
             */
            method?: "grpo" | "opd" | "combine";
            /**
             * @default {
             *       "kind": "embedded",
             *       "checkpoint": "models/base"
             *     }
             */
            policy?:
              | {
                  /** @constant */
                  kind: "embedded";
                  /** @default models/base */
                  checkpoint?: string;
                }
              | {
                  /** Format: uri */
                  baseUrl: string;
                  model: string;
                  apiKey?: string;
                  /** @constant */
                  kind: "openai";
                  /** @enum {string} */
                  loraAdapters?: "sglang" | "vllm";
                  loraMaxLoaded?: number;
                }
              | {
                  /** Format: uri */
                  baseUrl: string;
                  model: string;
                  apiKey?: string;
                  /** @constant */
                  kind: "sglang";
                  /** @enum {string} */
                  loraAdapters?: "sglang" | "vllm";
                  loraMaxLoaded?: number;
                };
            /**
             * @default {
             *       "backend": {
             *         "kind": "heuristic"
             *       },
             *       "votes": 3,
             *       "temperature": 0.6,
             *       "maxTokens": 4096,
             *       "includeRequest": false,
             *       "evalMode": true,
             *       "hintSelection": "longest",
             *       "chatTemplateKwargs": {}
             *     }
             */
            judge?: {
              /**
               * @default {
               *       "kind": "heuristic"
               *     }
               */
              backend?:
                | {
                    /** @constant */
                    kind: "heuristic";
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "openai";
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "sglang";
                  }
                | {
                    /** @constant */
                    kind: "custom";
                    modulePath: string;
                  };
              /** @default 3 */
              votes?: number;
              /** @default 0.6 */
              temperature?: number;
              /** @default 4096 */
              maxTokens?: number;
              /** @default false */
              includeRequest?: boolean;
              /** @default true */
              evalMode?: boolean;
              /**
               * @default longest
               * @enum {string}
               */
              hintSelection?: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
              hintM?: number;
              chatTemplate?: string;
              /** @default {} */
              chatTemplateKwargs?: {
                [key: string]: string | number | boolean | null;
              };
            };
            /**
             * @default {
             *       "backend": "embedded",
             *       "gpu": {
             *         "nodes": 1,
             *         "gpusPerNode": 8,
             *         "actorGpus": 4,
             *         "rolloutGpus": 2,
             *         "prmGpus": 2,
             *         "rolloutGpusPerEngine": 2,
             *         "prmGpusPerEngine": 2,
             *         "prmTeacherGpus": 0,
             *         "colocate": false
             *       }
             *     }
             */
            trainer?: {
              /**
               * @default embedded
               * @enum {string}
               */
              backend?: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
              /** @enum {string} */
              finetune?: "lora" | "full" | "auto";
              /**
               * @default {
               *       "nodes": 1,
               *       "gpusPerNode": 8,
               *       "actorGpus": 4,
               *       "rolloutGpus": 2,
               *       "prmGpus": 2,
               *       "rolloutGpusPerEngine": 2,
               *       "prmGpusPerEngine": 2,
               *       "prmTeacherGpus": 0,
               *       "colocate": false
               *     }
               */
              gpu?: {
                /** @default 1 */
                nodes?: number;
                /** @default 8 */
                gpusPerNode?: number;
                /** @default 4 */
                actorGpus?: number;
                /** @default 2 */
                rolloutGpus?: number;
                /** @default 2 */
                prmGpus?: number;
                /** @default 2 */
                rolloutGpusPerEngine?: number;
                /** @default 2 */
                prmGpusPerEngine?: number;
                /** @default 0 */
                prmTeacherGpus?: number;
                /** @default false */
                colocate?: boolean;
              };
              /** Format: uri */
              rayAddress?: string;
            };
            /**
             * @default {
             *       "lr": 0.00001,
             *       "epsClip": 0.2,
             *       "epsClipHigh": 0.28,
             *       "klCoef": 0,
             *       "entropyCoef": 0,
             *       "batchSize": 16,
             *       "wOpd": 1,
             *       "wRl": 1,
             *       "maxStaleness": 4,
             *       "stalePolicy": "drop",
             *       "keepCheckpoints": 5,
             *       "gradClip": 1,
             *       "opdEstimator": "sampled",
             *       "topK": 50,
             *       "teacherSource": "base",
             *       "advClamp": 0,
             *       "topkDiffClip": 1,
             *       "normalizeAdvantages": false,
             *       "advantageGroups": "batch",
             *       "ppoEpochs": 1,
             *       "baseKlCoef": 0,
             *       "opdExtrapolation": 1,
             *       "hindsightSamples": 0,
             *       "hindsightWeight": 0.5,
             *       "hindsightTarget": "sampled",
             *       "hindsightFocus": "uniform",
             *       "hindsightMinLogprob": -0.15,
             *       "hindsightSampleTemperature": 1,
             *       "stylePrompts": 0,
             *       "rememberedStyleHints": false,
             *       "hintMemory": false,
             *       "conversationHints": false,
             *       "userStyleHints": false,
             *       "dualClip": 0
             *     }
             */
            hyper?: {
              /** @default 0.00001 */
              lr?: number;
              /** @default 0.2 */
              epsClip?: number;
              /** @default 0.28 */
              epsClipHigh?: number;
              /** @default 0 */
              klCoef?: number;
              /** @default 0 */
              entropyCoef?: number;
              /** @default 16 */
              batchSize?: number;
              /** @default 1 */
              wOpd?: number;
              /** @default 1 */
              wRl?: number;
              /** @default 4 */
              maxStaleness?: number;
              /**
               * @default drop
               * @enum {string}
               */
              stalePolicy?: "drop" | "importance-weight";
              /** @default 5 */
              keepCheckpoints?: number;
              /** @default 1 */
              gradClip?: number;
              /**
               * @default sampled
               * @enum {string}
               */
              opdEstimator?: "sampled" | "topk" | "full";
              /** @default 50 */
              topK?: number;
              /**
               * @default base
               * @enum {string}
               */
              teacherSource?: "base" | "current";
              /** @default 0 */
              advClamp?: number;
              /** @default 1 */
              topkDiffClip?: number;
              /** @default false */
              normalizeAdvantages?: boolean;
              /**
               * @default batch
               * @enum {string}
               */
              advantageGroups?: "batch" | "context";
              /** @default 1 */
              ppoEpochs?: number;
              /** @default 0 */
              baseKlCoef?: number;
              /** @default 1 */
              opdExtrapolation?: number;
              /** @default 0 */
              hindsightSamples?: number;
              /** @default 0.5 */
              hindsightWeight?: number;
              /**
               * @default sampled
               * @enum {string}
               */
              hindsightTarget?: "sampled" | "teacher";
              /**
               * @default uniform
               * @enum {string}
               */
              hindsightFocus?: "uniform" | "hint";
              /** @default -0.15 */
              hindsightMinLogprob?: number;
              /** @default 1 */
              hindsightSampleTemperature?: number;
              hindsightMinGain?: number;
              /** @default 0 */
              stylePrompts?: number;
              /** @default false */
              rememberedStyleHints?: boolean;
              /** @default false */
              hintMemory?: boolean;
              /** @default false */
              conversationHints?: boolean;
              /** @default false */
              userStyleHints?: boolean;
              /** @default 0 */
              dualClip?: number;
            };
            /**
             * @default {
             *       "enabled": false,
             *       "rank": 16,
             *       "alpha": 32
             *     }
             */
            lora?: {
              /** @default false */
              enabled?: boolean;
              /** @default 16 */
              rank?: number;
              /** @default 32 */
              alpha?: number;
            };
            /**
             * @default {
             *       "defaultTurnType": "main",
             *       "sidePatterns": [],
             *       "contextPatterns": [],
             *       "maxTokens": 256,
             *       "promotion": "always",
             *       "gate": {
             *         "tolerance": 0.05,
             *         "confirm": false
             *       },
             *       "autoRollback": {
             *         "enabled": false,
             *         "margin": 0.3,
             *         "minTurns": 20
             *       }
             *     }
             */
            serving?: {
              /**
               * @default main
               * @enum {string}
               */
              defaultTurnType?: "main" | "side";
              /** @default [] */
              sidePatterns?: string[];
              /** @default [] */
              contextPatterns?: string[];
              temperature?: number;
              /** @default 256 */
              maxTokens?: number;
              /**
               * @default always
               * @enum {string}
               */
              promotion?: "always" | "gated";
              /**
               * @default {
               *       "tolerance": 0.05,
               *       "confirm": false
               *     }
               */
              gate?: {
                /** @default 0.05 */
                tolerance?: number;
                floor?: number;
                set?: string;
                /** @default false */
                confirm?: boolean;
              };
              /**
               * @default {
               *       "enabled": false,
               *       "margin": 0.3,
               *       "minTurns": 20
               *     }
               */
              autoRollback?: {
                /** @default false */
                enabled?: boolean;
                /** @default 0.3 */
                margin?: number;
                /** @default 20 */
                minTurns?: number;
              };
            };
            /**
             * @default {
             *       "enabled": false,
             *       "every": 1,
             *       "grader": "persona",
             *       "k": 2,
             *       "temperature": 0.7,
             *       "seed": 1,
             *       "maxTokens": 256,
             *       "votes": 3,
             *       "budget": {
             *         "maxReplyTokens": 20000,
             *         "maxSeconds": 600
             *       },
             *       "agreement": {
             *         "kappaThreshold": 0.6,
             *         "minLabeled": 30
             *       }
             *     }
             */
            evaluation?: {
              /** @default false */
              enabled?: boolean;
              /** @default 1 */
              every?: number;
              set?: string;
              /**
               * @default persona
               * @enum {string}
               */
              grader?: "persona" | "judge" | "custom";
              graderPath?: string;
              /** @default 2 */
              k?: number;
              /** @default 0.7 */
              temperature?: number;
              /** @default 1 */
              seed?: number;
              /** @default 256 */
              maxTokens?: number;
              /** @default 3 */
              votes?: number;
              tasks?: {
                taskSet: string;
                environment: string;
                /** @default 4 */
                k?: number;
                /** @default 4 */
                maxSteps?: number;
              };
              /**
               * @default {
               *       "maxReplyTokens": 20000,
               *       "maxSeconds": 600
               *     }
               */
              budget?: {
                /** @default 20000 */
                maxReplyTokens?: number;
                /** @default 600 */
                maxSeconds?: number;
              };
              /**
               * @default {
               *       "kappaThreshold": 0.6,
               *       "minLabeled": 30
               *     }
               */
              agreement?: {
                /** @default 0.6 */
                kappaThreshold?: number;
                /** @default 30 */
                minLabeled?: number;
              };
            };
            customLossPath?: string;
            /**
             * @default shared
             * @enum {string}
             */
            personalization?: "shared" | "per-user";
            /**
             * @default {
             *       "rank": 8,
             *       "alpha": 16,
             *       "targets": "attention+mlp",
             *       "advantages": "positive",
             *       "lr": 1,
             *       "gradClip": 0.4,
             *       "hindsightSamples": 2,
             *       "hindsightWeight": 3,
             *       "hindsightMinLogprob": -0.15,
             *       "rememberedHint": true,
             *       "baseKlCoef": 0.03,
             *       "baseKlScope": "samples",
             *       "hindsightRelevance": false,
             *       "hindsightTarget": "teacher",
             *       "hindsightFocus": "uniform",
             *       "hindsightTemperature": 0.7,
             *       "stylePrompts": 32,
             *       "newUsers": "base",
             *       "minSamples": 16,
             *       "gateTolerance": 0.05,
             *       "heldOutFraction": 0.25,
             *       "maxSamplesPerVersion": 64,
             *       "idleAfterS": 0,
             *       "windowUtc": null
             *     }
             */
            perUser?: {
              /** @default 8 */
              rank?: number;
              /** @default 16 */
              alpha?: number;
              /**
               * @default attention+mlp
               * @enum {string}
               */
              targets?: "attention" | "attention+mlp";
              /**
               * @default positive
               * @enum {string}
               */
              advantages?: "raw" | "centered" | "positive";
              /** @default 1 */
              lr?: number;
              /** @default 0.4 */
              gradClip?: number;
              /** @default 2 */
              hindsightSamples?: number;
              /** @default 3 */
              hindsightWeight?: number;
              /** @default -0.15 */
              hindsightMinLogprob?: number;
              hindsightMinGain?: number;
              /** @default true */
              rememberedHint?: boolean;
              /** @default 0.03 */
              baseKlCoef?: number;
              /**
               * @default samples
               * @enum {string}
               */
              baseKlScope?: "samples" | "all";
              /** @default false */
              hindsightRelevance?: boolean;
              /**
               * @default teacher
               * @enum {string}
               */
              hindsightTarget?: "sampled" | "teacher";
              /**
               * @default uniform
               * @enum {string}
               */
              hindsightFocus?: "uniform" | "hint";
              /** @default 0.7 */
              hindsightTemperature?: number;
              /** @default 32 */
              stylePrompts?: number;
              /**
               * @default base
               * @enum {string}
               */
              newUsers?: "base" | "shared";
              seed?: number;
              /** @default 16 */
              minSamples?: number;
              /** @default 0.05 */
              gateTolerance?: number;
              /** @default 0.25 */
              heldOutFraction?: number;
              /** @default 64 */
              maxSamplesPerVersion?: number;
              /** @default 0 */
              idleAfterS?: number;
              /** @default null */
              windowUtc?: {
                from: number;
                to: number;
              } | null;
            };
          };
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            slug: string;
            name: string;
            description: string;
            /** @enum {string} */
            status: "ACTIVE" | "ARCHIVED";
            demo: boolean;
            config: {
              /**
               * @default combine
               * @enum {string}
               */
              method: "grpo" | "opd" | "combine";
              /**
               * @default {
               *       "kind": "embedded",
               *       "checkpoint": "models/base"
               *     }
               */
              policy:
                | {
                    /** @constant */
                    kind: "embedded";
                    /** @default models/base */
                    checkpoint: string;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "openai";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "sglang";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  };
              /**
               * @default {
               *       "backend": {
               *         "kind": "heuristic"
               *       },
               *       "votes": 3,
               *       "temperature": 0.6,
               *       "maxTokens": 4096,
               *       "includeRequest": false,
               *       "evalMode": true,
               *       "hintSelection": "longest",
               *       "chatTemplateKwargs": {}
               *     }
               */
              judge: {
                /**
                 * @default {
                 *       "kind": "heuristic"
                 *     }
                 */
                backend:
                  | {
                      /** @constant */
                      kind: "heuristic";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "openai";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "sglang";
                    }
                  | {
                      /** @constant */
                      kind: "custom";
                      modulePath: string;
                    };
                /** @default 3 */
                votes: number;
                /** @default 0.6 */
                temperature: number;
                /** @default 4096 */
                maxTokens: number;
                /** @default false */
                includeRequest: boolean;
                /** @default true */
                evalMode: boolean;
                /**
                 * @default longest
                 * @enum {string}
                 */
                hintSelection: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
                hintM?: number;
                chatTemplate?: string;
                /** @default {} */
                chatTemplateKwargs: {
                  [key: string]: string | number | boolean | null;
                };
              };
              /**
               * @default {
               *       "backend": "embedded",
               *       "gpu": {
               *         "nodes": 1,
               *         "gpusPerNode": 8,
               *         "actorGpus": 4,
               *         "rolloutGpus": 2,
               *         "prmGpus": 2,
               *         "rolloutGpusPerEngine": 2,
               *         "prmGpusPerEngine": 2,
               *         "prmTeacherGpus": 0,
               *         "colocate": false
               *       }
               *     }
               */
              trainer: {
                /**
                 * @default embedded
                 * @enum {string}
                 */
                backend: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
                /** @enum {string} */
                finetune?: "lora" | "full" | "auto";
                /**
                 * @default {
                 *       "nodes": 1,
                 *       "gpusPerNode": 8,
                 *       "actorGpus": 4,
                 *       "rolloutGpus": 2,
                 *       "prmGpus": 2,
                 *       "rolloutGpusPerEngine": 2,
                 *       "prmGpusPerEngine": 2,
                 *       "prmTeacherGpus": 0,
                 *       "colocate": false
                 *     }
                 */
                gpu: {
                  /** @default 1 */
                  nodes: number;
                  /** @default 8 */
                  gpusPerNode: number;
                  /** @default 4 */
                  actorGpus: number;
                  /** @default 2 */
                  rolloutGpus: number;
                  /** @default 2 */
                  prmGpus: number;
                  /** @default 2 */
                  rolloutGpusPerEngine: number;
                  /** @default 2 */
                  prmGpusPerEngine: number;
                  /** @default 0 */
                  prmTeacherGpus: number;
                  /** @default false */
                  colocate: boolean;
                };
                /** Format: uri */
                rayAddress?: string;
              };
              /**
               * @default {
               *       "lr": 0.00001,
               *       "epsClip": 0.2,
               *       "epsClipHigh": 0.28,
               *       "klCoef": 0,
               *       "entropyCoef": 0,
               *       "batchSize": 16,
               *       "wOpd": 1,
               *       "wRl": 1,
               *       "maxStaleness": 4,
               *       "stalePolicy": "drop",
               *       "keepCheckpoints": 5,
               *       "gradClip": 1,
               *       "opdEstimator": "sampled",
               *       "topK": 50,
               *       "teacherSource": "base",
               *       "advClamp": 0,
               *       "topkDiffClip": 1,
               *       "normalizeAdvantages": false,
               *       "advantageGroups": "batch",
               *       "ppoEpochs": 1,
               *       "baseKlCoef": 0,
               *       "opdExtrapolation": 1,
               *       "hindsightSamples": 0,
               *       "hindsightWeight": 0.5,
               *       "hindsightTarget": "sampled",
               *       "hindsightFocus": "uniform",
               *       "hindsightMinLogprob": -0.15,
               *       "hindsightSampleTemperature": 1,
               *       "stylePrompts": 0,
               *       "rememberedStyleHints": false,
               *       "hintMemory": false,
               *       "conversationHints": false,
               *       "userStyleHints": false,
               *       "dualClip": 0
               *     }
               */
              hyper: {
                /** @default 0.00001 */
                lr: number;
                /** @default 0.2 */
                epsClip: number;
                /** @default 0.28 */
                epsClipHigh: number;
                /** @default 0 */
                klCoef: number;
                /** @default 0 */
                entropyCoef: number;
                /** @default 16 */
                batchSize: number;
                /** @default 1 */
                wOpd: number;
                /** @default 1 */
                wRl: number;
                /** @default 4 */
                maxStaleness: number;
                /**
                 * @default drop
                 * @enum {string}
                 */
                stalePolicy: "drop" | "importance-weight";
                /** @default 5 */
                keepCheckpoints: number;
                /** @default 1 */
                gradClip: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                opdEstimator: "sampled" | "topk" | "full";
                /** @default 50 */
                topK: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                teacherSource: "base" | "current";
                /** @default 0 */
                advClamp: number;
                /** @default 1 */
                topkDiffClip: number;
                /** @default false */
                normalizeAdvantages: boolean;
                /**
                 * @default batch
                 * @enum {string}
                 */
                advantageGroups: "batch" | "context";
                /** @default 1 */
                ppoEpochs: number;
                /** @default 0 */
                baseKlCoef: number;
                /** @default 1 */
                opdExtrapolation: number;
                /** @default 0 */
                hindsightSamples: number;
                /** @default 0.5 */
                hindsightWeight: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default -0.15 */
                hindsightMinLogprob: number;
                /** @default 1 */
                hindsightSampleTemperature: number;
                hindsightMinGain?: number;
                /** @default 0 */
                stylePrompts: number;
                /** @default false */
                rememberedStyleHints: boolean;
                /** @default false */
                hintMemory: boolean;
                /** @default false */
                conversationHints: boolean;
                /** @default false */
                userStyleHints: boolean;
                /** @default 0 */
                dualClip: number;
              };
              /**
               * @default {
               *       "enabled": false,
               *       "rank": 16,
               *       "alpha": 32
               *     }
               */
              lora: {
                /** @default false */
                enabled: boolean;
                /** @default 16 */
                rank: number;
                /** @default 32 */
                alpha: number;
              };
              /**
               * @default {
               *       "defaultTurnType": "main",
               *       "sidePatterns": [],
               *       "contextPatterns": [],
               *       "maxTokens": 256,
               *       "promotion": "always",
               *       "gate": {
               *         "tolerance": 0.05,
               *         "confirm": false
               *       },
               *       "autoRollback": {
               *         "enabled": false,
               *         "margin": 0.3,
               *         "minTurns": 20
               *       }
               *     }
               */
              serving: {
                /**
                 * @default main
                 * @enum {string}
                 */
                defaultTurnType: "main" | "side";
                /** @default [] */
                sidePatterns: string[];
                /** @default [] */
                contextPatterns: string[];
                temperature?: number;
                /** @default 256 */
                maxTokens: number;
                /**
                 * @default always
                 * @enum {string}
                 */
                promotion: "always" | "gated";
                /**
                 * @default {
                 *       "tolerance": 0.05,
                 *       "confirm": false
                 *     }
                 */
                gate: {
                  /** @default 0.05 */
                  tolerance: number;
                  floor?: number;
                  set?: string;
                  /** @default false */
                  confirm: boolean;
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "margin": 0.3,
                 *       "minTurns": 20
                 *     }
                 */
                autoRollback: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 0.3 */
                  margin: number;
                  /** @default 20 */
                  minTurns: number;
                };
              };
              /**
               * @default {
               *       "enabled": false,
               *       "every": 1,
               *       "grader": "persona",
               *       "k": 2,
               *       "temperature": 0.7,
               *       "seed": 1,
               *       "maxTokens": 256,
               *       "votes": 3,
               *       "budget": {
               *         "maxReplyTokens": 20000,
               *         "maxSeconds": 600
               *       },
               *       "agreement": {
               *         "kappaThreshold": 0.6,
               *         "minLabeled": 30
               *       }
               *     }
               */
              evaluation: {
                /** @default false */
                enabled: boolean;
                /** @default 1 */
                every: number;
                set?: string;
                /**
                 * @default persona
                 * @enum {string}
                 */
                grader: "persona" | "judge" | "custom";
                graderPath?: string;
                /** @default 2 */
                k: number;
                /** @default 0.7 */
                temperature: number;
                /** @default 1 */
                seed: number;
                /** @default 256 */
                maxTokens: number;
                /** @default 3 */
                votes: number;
                tasks?: {
                  taskSet: string;
                  environment: string;
                  /** @default 4 */
                  k: number;
                  /** @default 4 */
                  maxSteps: number;
                };
                /**
                 * @default {
                 *       "maxReplyTokens": 20000,
                 *       "maxSeconds": 600
                 *     }
                 */
                budget: {
                  /** @default 20000 */
                  maxReplyTokens: number;
                  /** @default 600 */
                  maxSeconds: number;
                };
                /**
                 * @default {
                 *       "kappaThreshold": 0.6,
                 *       "minLabeled": 30
                 *     }
                 */
                agreement: {
                  /** @default 0.6 */
                  kappaThreshold: number;
                  /** @default 30 */
                  minLabeled: number;
                };
              };
              customLossPath?: string;
              /**
               * @default shared
               * @enum {string}
               */
              personalization: "shared" | "per-user";
              /**
               * @default {
               *       "rank": 8,
               *       "alpha": 16,
               *       "targets": "attention+mlp",
               *       "advantages": "positive",
               *       "lr": 1,
               *       "gradClip": 0.4,
               *       "hindsightSamples": 2,
               *       "hindsightWeight": 3,
               *       "hindsightMinLogprob": -0.15,
               *       "rememberedHint": true,
               *       "baseKlCoef": 0.03,
               *       "baseKlScope": "samples",
               *       "hindsightRelevance": false,
               *       "hindsightTarget": "teacher",
               *       "hindsightFocus": "uniform",
               *       "hindsightTemperature": 0.7,
               *       "stylePrompts": 32,
               *       "newUsers": "base",
               *       "minSamples": 16,
               *       "gateTolerance": 0.05,
               *       "heldOutFraction": 0.25,
               *       "maxSamplesPerVersion": 64,
               *       "idleAfterS": 0,
               *       "windowUtc": null
               *     }
               */
              perUser: {
                /** @default 8 */
                rank: number;
                /** @default 16 */
                alpha: number;
                /**
                 * @default attention+mlp
                 * @enum {string}
                 */
                targets: "attention" | "attention+mlp";
                /**
                 * @default positive
                 * @enum {string}
                 */
                advantages: "raw" | "centered" | "positive";
                /** @default 1 */
                lr: number;
                /** @default 0.4 */
                gradClip: number;
                /** @default 2 */
                hindsightSamples: number;
                /** @default 3 */
                hindsightWeight: number;
                /** @default -0.15 */
                hindsightMinLogprob: number;
                hindsightMinGain?: number;
                /** @default true */
                rememberedHint: boolean;
                /** @default 0.03 */
                baseKlCoef: number;
                /**
                 * @default samples
                 * @enum {string}
                 */
                baseKlScope: "samples" | "all";
                /** @default false */
                hindsightRelevance: boolean;
                /**
                 * @default teacher
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default 0.7 */
                hindsightTemperature: number;
                /** @default 32 */
                stylePrompts: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                newUsers: "base" | "shared";
                seed?: number;
                /** @default 16 */
                minSamples: number;
                /** @default 0.05 */
                gateTolerance: number;
                /** @default 0.25 */
                heldOutFraction: number;
                /** @default 64 */
                maxSamplesPerVersion: number;
                /** @default 0 */
                idleAfterS: number;
                /** @default null */
                windowUtc: {
                  from: number;
                  to: number;
                } | null;
              };
            };
            secretsSet: string[];
            createdAt: string;
            updatedAt: string;
            archivedAt: string | null;
            activeRun: {
              id: string;
              number: number | null;
              status: string;
            } | null;
            counts?: {
              runs: number | null;
              sessions: number | null;
              turns: number | null;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "experiments.diff": {
    parameters: {
      query: {
        kind?: "experiment" | "run";
        a: string;
        b: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            a: {
              id: string;
              label: string;
            };
            b: {
              id: string;
              label: string;
            };
            changes: {
              path: string;
              before: unknown;
              after: unknown;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "runs.list": {
    parameters: {
      query?: {
        cursor?: string;
        limit?: number;
        experimentId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              experimentId: string;
              number: number | null;
              /** @enum {string} */
              status: "PENDING" | "RUNNING" | "PAUSED" | "FINISHED" | "FAILED" | "CRASHED" | "KILLED";
              trainerBackend: string;
              externalJobId: string | null;
              statusMessage: string | null;
              config: {
                /**
                 * @default combine
                 * @enum {string}
                 */
                method: "grpo" | "opd" | "combine";
                /**
                 * @default {
                 *       "kind": "embedded",
                 *       "checkpoint": "models/base"
                 *     }
                 */
                policy:
                  | {
                      /** @constant */
                      kind: "embedded";
                      /** @default models/base */
                      checkpoint: string;
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "openai";
                      /** @enum {string} */
                      loraAdapters?: "sglang" | "vllm";
                      loraMaxLoaded?: number;
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "sglang";
                      /** @enum {string} */
                      loraAdapters?: "sglang" | "vllm";
                      loraMaxLoaded?: number;
                    };
                /**
                 * @default {
                 *       "backend": {
                 *         "kind": "heuristic"
                 *       },
                 *       "votes": 3,
                 *       "temperature": 0.6,
                 *       "maxTokens": 4096,
                 *       "includeRequest": false,
                 *       "evalMode": true,
                 *       "hintSelection": "longest",
                 *       "chatTemplateKwargs": {}
                 *     }
                 */
                judge: {
                  /**
                   * @default {
                   *       "kind": "heuristic"
                   *     }
                   */
                  backend:
                    | {
                        /** @constant */
                        kind: "heuristic";
                      }
                    | {
                        /** Format: uri */
                        baseUrl: string;
                        model: string;
                        apiKey?: string;
                        /** @constant */
                        kind: "openai";
                      }
                    | {
                        /** Format: uri */
                        baseUrl: string;
                        model: string;
                        apiKey?: string;
                        /** @constant */
                        kind: "sglang";
                      }
                    | {
                        /** @constant */
                        kind: "custom";
                        modulePath: string;
                      };
                  /** @default 3 */
                  votes: number;
                  /** @default 0.6 */
                  temperature: number;
                  /** @default 4096 */
                  maxTokens: number;
                  /** @default false */
                  includeRequest: boolean;
                  /** @default true */
                  evalMode: boolean;
                  /**
                   * @default longest
                   * @enum {string}
                   */
                  hintSelection: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
                  hintM?: number;
                  chatTemplate?: string;
                  /** @default {} */
                  chatTemplateKwargs: {
                    [key: string]: string | number | boolean | null;
                  };
                };
                /**
                 * @default {
                 *       "backend": "embedded",
                 *       "gpu": {
                 *         "nodes": 1,
                 *         "gpusPerNode": 8,
                 *         "actorGpus": 4,
                 *         "rolloutGpus": 2,
                 *         "prmGpus": 2,
                 *         "rolloutGpusPerEngine": 2,
                 *         "prmGpusPerEngine": 2,
                 *         "prmTeacherGpus": 0,
                 *         "colocate": false
                 *       }
                 *     }
                 */
                trainer: {
                  /**
                   * @default embedded
                   * @enum {string}
                   */
                  backend: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
                  /** @enum {string} */
                  finetune?: "lora" | "full" | "auto";
                  /**
                   * @default {
                   *       "nodes": 1,
                   *       "gpusPerNode": 8,
                   *       "actorGpus": 4,
                   *       "rolloutGpus": 2,
                   *       "prmGpus": 2,
                   *       "rolloutGpusPerEngine": 2,
                   *       "prmGpusPerEngine": 2,
                   *       "prmTeacherGpus": 0,
                   *       "colocate": false
                   *     }
                   */
                  gpu: {
                    /** @default 1 */
                    nodes: number;
                    /** @default 8 */
                    gpusPerNode: number;
                    /** @default 4 */
                    actorGpus: number;
                    /** @default 2 */
                    rolloutGpus: number;
                    /** @default 2 */
                    prmGpus: number;
                    /** @default 2 */
                    rolloutGpusPerEngine: number;
                    /** @default 2 */
                    prmGpusPerEngine: number;
                    /** @default 0 */
                    prmTeacherGpus: number;
                    /** @default false */
                    colocate: boolean;
                  };
                  /** Format: uri */
                  rayAddress?: string;
                };
                /**
                 * @default {
                 *       "lr": 0.00001,
                 *       "epsClip": 0.2,
                 *       "epsClipHigh": 0.28,
                 *       "klCoef": 0,
                 *       "entropyCoef": 0,
                 *       "batchSize": 16,
                 *       "wOpd": 1,
                 *       "wRl": 1,
                 *       "maxStaleness": 4,
                 *       "stalePolicy": "drop",
                 *       "keepCheckpoints": 5,
                 *       "gradClip": 1,
                 *       "opdEstimator": "sampled",
                 *       "topK": 50,
                 *       "teacherSource": "base",
                 *       "advClamp": 0,
                 *       "topkDiffClip": 1,
                 *       "normalizeAdvantages": false,
                 *       "advantageGroups": "batch",
                 *       "ppoEpochs": 1,
                 *       "baseKlCoef": 0,
                 *       "opdExtrapolation": 1,
                 *       "hindsightSamples": 0,
                 *       "hindsightWeight": 0.5,
                 *       "hindsightTarget": "sampled",
                 *       "hindsightFocus": "uniform",
                 *       "hindsightMinLogprob": -0.15,
                 *       "hindsightSampleTemperature": 1,
                 *       "stylePrompts": 0,
                 *       "rememberedStyleHints": false,
                 *       "hintMemory": false,
                 *       "conversationHints": false,
                 *       "userStyleHints": false,
                 *       "dualClip": 0
                 *     }
                 */
                hyper: {
                  /** @default 0.00001 */
                  lr: number;
                  /** @default 0.2 */
                  epsClip: number;
                  /** @default 0.28 */
                  epsClipHigh: number;
                  /** @default 0 */
                  klCoef: number;
                  /** @default 0 */
                  entropyCoef: number;
                  /** @default 16 */
                  batchSize: number;
                  /** @default 1 */
                  wOpd: number;
                  /** @default 1 */
                  wRl: number;
                  /** @default 4 */
                  maxStaleness: number;
                  /**
                   * @default drop
                   * @enum {string}
                   */
                  stalePolicy: "drop" | "importance-weight";
                  /** @default 5 */
                  keepCheckpoints: number;
                  /** @default 1 */
                  gradClip: number;
                  /**
                   * @default sampled
                   * @enum {string}
                   */
                  opdEstimator: "sampled" | "topk" | "full";
                  /** @default 50 */
                  topK: number;
                  /**
                   * @default base
                   * @enum {string}
                   */
                  teacherSource: "base" | "current";
                  /** @default 0 */
                  advClamp: number;
                  /** @default 1 */
                  topkDiffClip: number;
                  /** @default false */
                  normalizeAdvantages: boolean;
                  /**
                   * @default batch
                   * @enum {string}
                   */
                  advantageGroups: "batch" | "context";
                  /** @default 1 */
                  ppoEpochs: number;
                  /** @default 0 */
                  baseKlCoef: number;
                  /** @default 1 */
                  opdExtrapolation: number;
                  /** @default 0 */
                  hindsightSamples: number;
                  /** @default 0.5 */
                  hindsightWeight: number;
                  /**
                   * @default sampled
                   * @enum {string}
                   */
                  hindsightTarget: "sampled" | "teacher";
                  /**
                   * @default uniform
                   * @enum {string}
                   */
                  hindsightFocus: "uniform" | "hint";
                  /** @default -0.15 */
                  hindsightMinLogprob: number;
                  /** @default 1 */
                  hindsightSampleTemperature: number;
                  hindsightMinGain?: number;
                  /** @default 0 */
                  stylePrompts: number;
                  /** @default false */
                  rememberedStyleHints: boolean;
                  /** @default false */
                  hintMemory: boolean;
                  /** @default false */
                  conversationHints: boolean;
                  /** @default false */
                  userStyleHints: boolean;
                  /** @default 0 */
                  dualClip: number;
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "rank": 16,
                 *       "alpha": 32
                 *     }
                 */
                lora: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 16 */
                  rank: number;
                  /** @default 32 */
                  alpha: number;
                };
                /**
                 * @default {
                 *       "defaultTurnType": "main",
                 *       "sidePatterns": [],
                 *       "contextPatterns": [],
                 *       "maxTokens": 256,
                 *       "promotion": "always",
                 *       "gate": {
                 *         "tolerance": 0.05,
                 *         "confirm": false
                 *       },
                 *       "autoRollback": {
                 *         "enabled": false,
                 *         "margin": 0.3,
                 *         "minTurns": 20
                 *       }
                 *     }
                 */
                serving: {
                  /**
                   * @default main
                   * @enum {string}
                   */
                  defaultTurnType: "main" | "side";
                  /** @default [] */
                  sidePatterns: string[];
                  /** @default [] */
                  contextPatterns: string[];
                  temperature?: number;
                  /** @default 256 */
                  maxTokens: number;
                  /**
                   * @default always
                   * @enum {string}
                   */
                  promotion: "always" | "gated";
                  /**
                   * @default {
                   *       "tolerance": 0.05,
                   *       "confirm": false
                   *     }
                   */
                  gate: {
                    /** @default 0.05 */
                    tolerance: number;
                    floor?: number;
                    set?: string;
                    /** @default false */
                    confirm: boolean;
                  };
                  /**
                   * @default {
                   *       "enabled": false,
                   *       "margin": 0.3,
                   *       "minTurns": 20
                   *     }
                   */
                  autoRollback: {
                    /** @default false */
                    enabled: boolean;
                    /** @default 0.3 */
                    margin: number;
                    /** @default 20 */
                    minTurns: number;
                  };
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "every": 1,
                 *       "grader": "persona",
                 *       "k": 2,
                 *       "temperature": 0.7,
                 *       "seed": 1,
                 *       "maxTokens": 256,
                 *       "votes": 3,
                 *       "budget": {
                 *         "maxReplyTokens": 20000,
                 *         "maxSeconds": 600
                 *       },
                 *       "agreement": {
                 *         "kappaThreshold": 0.6,
                 *         "minLabeled": 30
                 *       }
                 *     }
                 */
                evaluation: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 1 */
                  every: number;
                  set?: string;
                  /**
                   * @default persona
                   * @enum {string}
                   */
                  grader: "persona" | "judge" | "custom";
                  graderPath?: string;
                  /** @default 2 */
                  k: number;
                  /** @default 0.7 */
                  temperature: number;
                  /** @default 1 */
                  seed: number;
                  /** @default 256 */
                  maxTokens: number;
                  /** @default 3 */
                  votes: number;
                  tasks?: {
                    taskSet: string;
                    environment: string;
                    /** @default 4 */
                    k: number;
                    /** @default 4 */
                    maxSteps: number;
                  };
                  /**
                   * @default {
                   *       "maxReplyTokens": 20000,
                   *       "maxSeconds": 600
                   *     }
                   */
                  budget: {
                    /** @default 20000 */
                    maxReplyTokens: number;
                    /** @default 600 */
                    maxSeconds: number;
                  };
                  /**
                   * @default {
                   *       "kappaThreshold": 0.6,
                   *       "minLabeled": 30
                   *     }
                   */
                  agreement: {
                    /** @default 0.6 */
                    kappaThreshold: number;
                    /** @default 30 */
                    minLabeled: number;
                  };
                };
                customLossPath?: string;
                /**
                 * @default shared
                 * @enum {string}
                 */
                personalization: "shared" | "per-user";
                /**
                 * @default {
                 *       "rank": 8,
                 *       "alpha": 16,
                 *       "targets": "attention+mlp",
                 *       "advantages": "positive",
                 *       "lr": 1,
                 *       "gradClip": 0.4,
                 *       "hindsightSamples": 2,
                 *       "hindsightWeight": 3,
                 *       "hindsightMinLogprob": -0.15,
                 *       "rememberedHint": true,
                 *       "baseKlCoef": 0.03,
                 *       "baseKlScope": "samples",
                 *       "hindsightRelevance": false,
                 *       "hindsightTarget": "teacher",
                 *       "hindsightFocus": "uniform",
                 *       "hindsightTemperature": 0.7,
                 *       "stylePrompts": 32,
                 *       "newUsers": "base",
                 *       "minSamples": 16,
                 *       "gateTolerance": 0.05,
                 *       "heldOutFraction": 0.25,
                 *       "maxSamplesPerVersion": 64,
                 *       "idleAfterS": 0,
                 *       "windowUtc": null
                 *     }
                 */
                perUser: {
                  /** @default 8 */
                  rank: number;
                  /** @default 16 */
                  alpha: number;
                  /**
                   * @default attention+mlp
                   * @enum {string}
                   */
                  targets: "attention" | "attention+mlp";
                  /**
                   * @default positive
                   * @enum {string}
                   */
                  advantages: "raw" | "centered" | "positive";
                  /** @default 1 */
                  lr: number;
                  /** @default 0.4 */
                  gradClip: number;
                  /** @default 2 */
                  hindsightSamples: number;
                  /** @default 3 */
                  hindsightWeight: number;
                  /** @default -0.15 */
                  hindsightMinLogprob: number;
                  hindsightMinGain?: number;
                  /** @default true */
                  rememberedHint: boolean;
                  /** @default 0.03 */
                  baseKlCoef: number;
                  /**
                   * @default samples
                   * @enum {string}
                   */
                  baseKlScope: "samples" | "all";
                  /** @default false */
                  hindsightRelevance: boolean;
                  /**
                   * @default teacher
                   * @enum {string}
                   */
                  hindsightTarget: "sampled" | "teacher";
                  /**
                   * @default uniform
                   * @enum {string}
                   */
                  hindsightFocus: "uniform" | "hint";
                  /** @default 0.7 */
                  hindsightTemperature: number;
                  /** @default 32 */
                  stylePrompts: number;
                  /**
                   * @default base
                   * @enum {string}
                   */
                  newUsers: "base" | "shared";
                  seed?: number;
                  /** @default 16 */
                  minSamples: number;
                  /** @default 0.05 */
                  gateTolerance: number;
                  /** @default 0.25 */
                  heldOutFraction: number;
                  /** @default 64 */
                  maxSamplesPerVersion: number;
                  /** @default 0 */
                  idleAfterS: number;
                  /** @default null */
                  windowUtc: {
                    from: number;
                    to: number;
                  } | null;
                };
              };
              createdAt: string;
              startedAt: string | null;
              endedAt: string | null;
              heartbeatAt: string | null;
              lastStep: number | null;
              rolloutUrl: string | null;
              rolloutUrlPrevious: string | null;
              rolloutUrlChangedAt: string | null;
            }[];
            nextCursor: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "runs.start": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          experimentId: string;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            number: number | null;
            /** @enum {string} */
            status: "PENDING" | "RUNNING" | "PAUSED" | "FINISHED" | "FAILED" | "CRASHED" | "KILLED";
            trainerBackend: string;
            externalJobId: string | null;
            statusMessage: string | null;
            config: {
              /**
               * @default combine
               * @enum {string}
               */
              method: "grpo" | "opd" | "combine";
              /**
               * @default {
               *       "kind": "embedded",
               *       "checkpoint": "models/base"
               *     }
               */
              policy:
                | {
                    /** @constant */
                    kind: "embedded";
                    /** @default models/base */
                    checkpoint: string;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "openai";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "sglang";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  };
              /**
               * @default {
               *       "backend": {
               *         "kind": "heuristic"
               *       },
               *       "votes": 3,
               *       "temperature": 0.6,
               *       "maxTokens": 4096,
               *       "includeRequest": false,
               *       "evalMode": true,
               *       "hintSelection": "longest",
               *       "chatTemplateKwargs": {}
               *     }
               */
              judge: {
                /**
                 * @default {
                 *       "kind": "heuristic"
                 *     }
                 */
                backend:
                  | {
                      /** @constant */
                      kind: "heuristic";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "openai";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "sglang";
                    }
                  | {
                      /** @constant */
                      kind: "custom";
                      modulePath: string;
                    };
                /** @default 3 */
                votes: number;
                /** @default 0.6 */
                temperature: number;
                /** @default 4096 */
                maxTokens: number;
                /** @default false */
                includeRequest: boolean;
                /** @default true */
                evalMode: boolean;
                /**
                 * @default longest
                 * @enum {string}
                 */
                hintSelection: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
                hintM?: number;
                chatTemplate?: string;
                /** @default {} */
                chatTemplateKwargs: {
                  [key: string]: string | number | boolean | null;
                };
              };
              /**
               * @default {
               *       "backend": "embedded",
               *       "gpu": {
               *         "nodes": 1,
               *         "gpusPerNode": 8,
               *         "actorGpus": 4,
               *         "rolloutGpus": 2,
               *         "prmGpus": 2,
               *         "rolloutGpusPerEngine": 2,
               *         "prmGpusPerEngine": 2,
               *         "prmTeacherGpus": 0,
               *         "colocate": false
               *       }
               *     }
               */
              trainer: {
                /**
                 * @default embedded
                 * @enum {string}
                 */
                backend: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
                /** @enum {string} */
                finetune?: "lora" | "full" | "auto";
                /**
                 * @default {
                 *       "nodes": 1,
                 *       "gpusPerNode": 8,
                 *       "actorGpus": 4,
                 *       "rolloutGpus": 2,
                 *       "prmGpus": 2,
                 *       "rolloutGpusPerEngine": 2,
                 *       "prmGpusPerEngine": 2,
                 *       "prmTeacherGpus": 0,
                 *       "colocate": false
                 *     }
                 */
                gpu: {
                  /** @default 1 */
                  nodes: number;
                  /** @default 8 */
                  gpusPerNode: number;
                  /** @default 4 */
                  actorGpus: number;
                  /** @default 2 */
                  rolloutGpus: number;
                  /** @default 2 */
                  prmGpus: number;
                  /** @default 2 */
                  rolloutGpusPerEngine: number;
                  /** @default 2 */
                  prmGpusPerEngine: number;
                  /** @default 0 */
                  prmTeacherGpus: number;
                  /** @default false */
                  colocate: boolean;
                };
                /** Format: uri */
                rayAddress?: string;
              };
              /**
               * @default {
               *       "lr": 0.00001,
               *       "epsClip": 0.2,
               *       "epsClipHigh": 0.28,
               *       "klCoef": 0,
               *       "entropyCoef": 0,
               *       "batchSize": 16,
               *       "wOpd": 1,
               *       "wRl": 1,
               *       "maxStaleness": 4,
               *       "stalePolicy": "drop",
               *       "keepCheckpoints": 5,
               *       "gradClip": 1,
               *       "opdEstimator": "sampled",
               *       "topK": 50,
               *       "teacherSource": "base",
               *       "advClamp": 0,
               *       "topkDiffClip": 1,
               *       "normalizeAdvantages": false,
               *       "advantageGroups": "batch",
               *       "ppoEpochs": 1,
               *       "baseKlCoef": 0,
               *       "opdExtrapolation": 1,
               *       "hindsightSamples": 0,
               *       "hindsightWeight": 0.5,
               *       "hindsightTarget": "sampled",
               *       "hindsightFocus": "uniform",
               *       "hindsightMinLogprob": -0.15,
               *       "hindsightSampleTemperature": 1,
               *       "stylePrompts": 0,
               *       "rememberedStyleHints": false,
               *       "hintMemory": false,
               *       "conversationHints": false,
               *       "userStyleHints": false,
               *       "dualClip": 0
               *     }
               */
              hyper: {
                /** @default 0.00001 */
                lr: number;
                /** @default 0.2 */
                epsClip: number;
                /** @default 0.28 */
                epsClipHigh: number;
                /** @default 0 */
                klCoef: number;
                /** @default 0 */
                entropyCoef: number;
                /** @default 16 */
                batchSize: number;
                /** @default 1 */
                wOpd: number;
                /** @default 1 */
                wRl: number;
                /** @default 4 */
                maxStaleness: number;
                /**
                 * @default drop
                 * @enum {string}
                 */
                stalePolicy: "drop" | "importance-weight";
                /** @default 5 */
                keepCheckpoints: number;
                /** @default 1 */
                gradClip: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                opdEstimator: "sampled" | "topk" | "full";
                /** @default 50 */
                topK: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                teacherSource: "base" | "current";
                /** @default 0 */
                advClamp: number;
                /** @default 1 */
                topkDiffClip: number;
                /** @default false */
                normalizeAdvantages: boolean;
                /**
                 * @default batch
                 * @enum {string}
                 */
                advantageGroups: "batch" | "context";
                /** @default 1 */
                ppoEpochs: number;
                /** @default 0 */
                baseKlCoef: number;
                /** @default 1 */
                opdExtrapolation: number;
                /** @default 0 */
                hindsightSamples: number;
                /** @default 0.5 */
                hindsightWeight: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default -0.15 */
                hindsightMinLogprob: number;
                /** @default 1 */
                hindsightSampleTemperature: number;
                hindsightMinGain?: number;
                /** @default 0 */
                stylePrompts: number;
                /** @default false */
                rememberedStyleHints: boolean;
                /** @default false */
                hintMemory: boolean;
                /** @default false */
                conversationHints: boolean;
                /** @default false */
                userStyleHints: boolean;
                /** @default 0 */
                dualClip: number;
              };
              /**
               * @default {
               *       "enabled": false,
               *       "rank": 16,
               *       "alpha": 32
               *     }
               */
              lora: {
                /** @default false */
                enabled: boolean;
                /** @default 16 */
                rank: number;
                /** @default 32 */
                alpha: number;
              };
              /**
               * @default {
               *       "defaultTurnType": "main",
               *       "sidePatterns": [],
               *       "contextPatterns": [],
               *       "maxTokens": 256,
               *       "promotion": "always",
               *       "gate": {
               *         "tolerance": 0.05,
               *         "confirm": false
               *       },
               *       "autoRollback": {
               *         "enabled": false,
               *         "margin": 0.3,
               *         "minTurns": 20
               *       }
               *     }
               */
              serving: {
                /**
                 * @default main
                 * @enum {string}
                 */
                defaultTurnType: "main" | "side";
                /** @default [] */
                sidePatterns: string[];
                /** @default [] */
                contextPatterns: string[];
                temperature?: number;
                /** @default 256 */
                maxTokens: number;
                /**
                 * @default always
                 * @enum {string}
                 */
                promotion: "always" | "gated";
                /**
                 * @default {
                 *       "tolerance": 0.05,
                 *       "confirm": false
                 *     }
                 */
                gate: {
                  /** @default 0.05 */
                  tolerance: number;
                  floor?: number;
                  set?: string;
                  /** @default false */
                  confirm: boolean;
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "margin": 0.3,
                 *       "minTurns": 20
                 *     }
                 */
                autoRollback: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 0.3 */
                  margin: number;
                  /** @default 20 */
                  minTurns: number;
                };
              };
              /**
               * @default {
               *       "enabled": false,
               *       "every": 1,
               *       "grader": "persona",
               *       "k": 2,
               *       "temperature": 0.7,
               *       "seed": 1,
               *       "maxTokens": 256,
               *       "votes": 3,
               *       "budget": {
               *         "maxReplyTokens": 20000,
               *         "maxSeconds": 600
               *       },
               *       "agreement": {
               *         "kappaThreshold": 0.6,
               *         "minLabeled": 30
               *       }
               *     }
               */
              evaluation: {
                /** @default false */
                enabled: boolean;
                /** @default 1 */
                every: number;
                set?: string;
                /**
                 * @default persona
                 * @enum {string}
                 */
                grader: "persona" | "judge" | "custom";
                graderPath?: string;
                /** @default 2 */
                k: number;
                /** @default 0.7 */
                temperature: number;
                /** @default 1 */
                seed: number;
                /** @default 256 */
                maxTokens: number;
                /** @default 3 */
                votes: number;
                tasks?: {
                  taskSet: string;
                  environment: string;
                  /** @default 4 */
                  k: number;
                  /** @default 4 */
                  maxSteps: number;
                };
                /**
                 * @default {
                 *       "maxReplyTokens": 20000,
                 *       "maxSeconds": 600
                 *     }
                 */
                budget: {
                  /** @default 20000 */
                  maxReplyTokens: number;
                  /** @default 600 */
                  maxSeconds: number;
                };
                /**
                 * @default {
                 *       "kappaThreshold": 0.6,
                 *       "minLabeled": 30
                 *     }
                 */
                agreement: {
                  /** @default 0.6 */
                  kappaThreshold: number;
                  /** @default 30 */
                  minLabeled: number;
                };
              };
              customLossPath?: string;
              /**
               * @default shared
               * @enum {string}
               */
              personalization: "shared" | "per-user";
              /**
               * @default {
               *       "rank": 8,
               *       "alpha": 16,
               *       "targets": "attention+mlp",
               *       "advantages": "positive",
               *       "lr": 1,
               *       "gradClip": 0.4,
               *       "hindsightSamples": 2,
               *       "hindsightWeight": 3,
               *       "hindsightMinLogprob": -0.15,
               *       "rememberedHint": true,
               *       "baseKlCoef": 0.03,
               *       "baseKlScope": "samples",
               *       "hindsightRelevance": false,
               *       "hindsightTarget": "teacher",
               *       "hindsightFocus": "uniform",
               *       "hindsightTemperature": 0.7,
               *       "stylePrompts": 32,
               *       "newUsers": "base",
               *       "minSamples": 16,
               *       "gateTolerance": 0.05,
               *       "heldOutFraction": 0.25,
               *       "maxSamplesPerVersion": 64,
               *       "idleAfterS": 0,
               *       "windowUtc": null
               *     }
               */
              perUser: {
                /** @default 8 */
                rank: number;
                /** @default 16 */
                alpha: number;
                /**
                 * @default attention+mlp
                 * @enum {string}
                 */
                targets: "attention" | "attention+mlp";
                /**
                 * @default positive
                 * @enum {string}
                 */
                advantages: "raw" | "centered" | "positive";
                /** @default 1 */
                lr: number;
                /** @default 0.4 */
                gradClip: number;
                /** @default 2 */
                hindsightSamples: number;
                /** @default 3 */
                hindsightWeight: number;
                /** @default -0.15 */
                hindsightMinLogprob: number;
                hindsightMinGain?: number;
                /** @default true */
                rememberedHint: boolean;
                /** @default 0.03 */
                baseKlCoef: number;
                /**
                 * @default samples
                 * @enum {string}
                 */
                baseKlScope: "samples" | "all";
                /** @default false */
                hindsightRelevance: boolean;
                /**
                 * @default teacher
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default 0.7 */
                hindsightTemperature: number;
                /** @default 32 */
                stylePrompts: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                newUsers: "base" | "shared";
                seed?: number;
                /** @default 16 */
                minSamples: number;
                /** @default 0.05 */
                gateTolerance: number;
                /** @default 0.25 */
                heldOutFraction: number;
                /** @default 64 */
                maxSamplesPerVersion: number;
                /** @default 0 */
                idleAfterS: number;
                /** @default null */
                windowUtc: {
                  from: number;
                  to: number;
                } | null;
              };
            };
            createdAt: string;
            startedAt: string | null;
            endedAt: string | null;
            heartbeatAt: string | null;
            lastStep: number | null;
            rolloutUrl: string | null;
            rolloutUrlPrevious: string | null;
            rolloutUrlChangedAt: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "runOps.trackJob": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @enum {string} */
          track: "retool" | "terminal";
          /**
           * @default fork
           * @enum {string}
           */
          driver?: "fork" | "console";
          hfCheckpoint: string;
          refLoad: string;
          saveDir: string;
          promptData?: string;
          evalData?: string;
          modelPreset?: string;
          /** @default 8 */
          nSamplesPerPrompt?: number;
          rolloutBatchSize?: number;
          numRollout?: number;
          /**
           * @default {
           *       "nodes": 1,
           *       "gpusPerNode": 8,
           *       "rolloutGpusPerEngine": 2
           *     }
           */
          gpu?: {
            /** @default 1 */
            nodes?: number;
            /** @default 8 */
            gpusPerNode?: number;
            actorGpus?: number;
            rolloutGpus?: number;
            /** @default 2 */
            rolloutGpusPerEngine?: number;
            tensorParallel?: number;
          };
          prm?: {
            modelPath: string;
            gpus?: number;
            gpusPerEngine?: number;
            /** @default 1 */
            m?: number;
            /** @default 1 */
            stepCoef?: number;
            temperature?: number;
            /** @default 4096 */
            maxNewTokens?: number;
          };
          /** Format: uri */
          envServerUrl?: string;
          customConfigPath?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            command: string;
            split: {
              actor: number | null;
              rollout: number | null;
              prm: number | null;
              total: number | null;
            };
            gpuSplit: {
              nodes: number | null;
              gpusPerNode: number | null;
              actorGpus: number | null;
              rolloutGpus: number | null;
              prmGpus: number | null;
              rolloutGpusPerEngine: number | null;
              prmGpusPerEngine: number | null;
              prmTeacherGpus: number | null;
              colocate: boolean;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "users.list": {
    parameters: {
      query?: {
        cursor?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              email: string;
              name: string | null;
              /** @enum {string} */
              role: "ADMIN" | "REVIEWER" | "VIEWER";
              disabled: boolean;
              createdAt: string;
              lastLoginAt: string | null;
            }[];
            nextCursor: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "users.create": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** Format: email */
          email: string;
          name?: string;
          password: string;
          /**
           * @default VIEWER
           * @enum {string}
           */
          role?: "ADMIN" | "REVIEWER" | "VIEWER";
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            email: string;
            name: string | null;
            /** @enum {string} */
            role: "ADMIN" | "REVIEWER" | "VIEWER";
            disabled: boolean;
            createdAt: string;
            lastLoginAt: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "apiKeys.list": {
    parameters: {
      query?: {
        cursor?: string;
        limit?: number;
        includeRevoked?: boolean | ("0" | "1" | "true" | "false");
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              name: string;
              prefix: string;
              scopes: string[];
              experimentId: string | null;
              endUserId: string | null;
              createdAt: string;
              lastUsedAt: string | null;
              expiresAt: string | null;
              revokedAt: string | null;
              createdById: string | null;
              createdByEmail: string | null;
            }[];
            nextCursor: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "apiKeys.create": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
          scopes: ("proxy" | "read" | "write" | "admin" | "identity")[];
          experimentId?: string;
          endUserId?: string;
          /** Format: date-time */
          expiresAt?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            name: string;
            prefix: string;
            scopes: string[];
            experimentId: string | null;
            endUserId: string | null;
            createdAt: string;
            lastUsedAt: string | null;
            expiresAt: string | null;
            revokedAt: string | null;
            createdById: string | null;
            createdByEmail: string | null;
            key: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "policyVersions.list": {
    parameters: {
      query: {
        cursor?: string;
        limit?: number;
        experimentId: string;
        runId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              experimentId: string;
              runId: string | null;
              version: number | null;
              parentVersion: number | null;
              /** @enum {string} */
              status: "ACTIVE" | "CANDIDATE" | "RETIRED" | "ROLLED_BACK";
              step: number | null;
              checkpointPath: string | null;
              checkpointSha: string | null;
              bytes: number | null;
              available: boolean;
              createdAt: string;
              promotedAt: string | null;
              gateReason: string | null;
            }[];
            nextCursor: string | null;
            activeVersion: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "policyVersions.promote": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          experimentId: string;
          version: number;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            active: {
              version: number | null;
              checkpointPath: string | null;
            };
            previous: number | null;
            versions: {
              id: string;
              experimentId: string;
              runId: string | null;
              version: number | null;
              parentVersion: number | null;
              /** @enum {string} */
              status: "ACTIVE" | "CANDIDATE" | "RETIRED" | "ROLLED_BACK";
              step: number | null;
              checkpointPath: string | null;
              checkpointSha: string | null;
              bytes: number | null;
              available: boolean;
              createdAt: string;
              promotedAt: string | null;
              gateReason: string | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "policyVersions.rollback": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          experimentId: string;
          toVersion?: number;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            active: {
              version: number | null;
              checkpointPath: string | null;
            };
            previous: number | null;
            versions: {
              id: string;
              experimentId: string;
              runId: string | null;
              version: number | null;
              parentVersion: number | null;
              /** @enum {string} */
              status: "ACTIVE" | "CANDIDATE" | "RETIRED" | "ROLLED_BACK";
              step: number | null;
              checkpointPath: string | null;
              checkpointSha: string | null;
              bytes: number | null;
              available: boolean;
              createdAt: string;
              promotedAt: string | null;
              gateReason: string | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "sessions.list": {
    parameters: {
      query?: {
        cursor?: string;
        limit?: number;
        experimentId?: string;
        externalId?: string;
        simulated?: boolean | ("0" | "1" | "true" | "false");
        done?: boolean | ("0" | "1" | "true" | "false");
        from?: string;
        to?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              experimentId: string;
              externalId: string;
              idSource: string;
              persona: string | null;
              simulated: boolean;
              done: boolean;
              doneAt: string | null;
              turnCount: number | null;
              /** Format: date-time */
              lastTurnAt: string;
              /** Format: date-time */
              createdAt: string;
              experiment: {
                name: string;
                slug: string;
              };
            }[];
            nextCursor: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "turns.list": {
    parameters: {
      query?: {
        experimentId?: string;
        runId?: string;
        sessionId?: string;
        turnType?: "MAIN" | "SIDE";
        status?: "OK" | "FAILED";
        score?: "0" | "1" | "-1" | "unjudged";
        agreement?: "unanimous" | "split";
        relabeled?: boolean | ("0" | "1" | "true" | "false");
        disputed?: boolean | ("0" | "1" | "true" | "false");
        from?: string;
        to?: string;
        policyVersion?: number;
        endUserId?: string;
        q?: string;
        cursor?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              sessionId: string;
              sessionExternalId: string;
              experimentId: string;
              runId: string | null;
              index: number | null;
              /** @enum {string} */
              turnType: "MAIN" | "SIDE";
              /** @enum {string} */
              status: "OK" | "FAILED";
              simulated: boolean;
              preview: string | null;
              finishReason: string | null;
              policyVersion: number | null;
              latencyMs: number | null;
              completionTokens: number | null;
              nextStateRole: string | null;
              /** Format: date-time */
              createdAt: string;
              error: string | null;
              judgmentId: string | null;
              score: number | null;
              hasHint: boolean | null;
              dispatch: string | null;
              excluded: boolean | null;
              excludeReason: string | null;
              votesValid: number | null;
              votesAgree: number | null;
              reviewerValue: number | null;
              reviewerExclude: boolean | null;
              userValue: number | null;
              disputed: boolean;
              hits: {
                /** @enum {string} */
                field: "messages" | "response" | "next state";
                snippet: string;
              }[];
            }[];
            nextCursor: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "labels.list": {
    parameters: {
      query?: {
        cursor?: string;
        limit?: number;
        turnId?: string;
        experimentId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              turnId: string;
              /** @enum {string} */
              source: "REVIEWER" | "USER" | "JUDGE";
              value: number | null;
              hint: string | null;
              exclude: boolean | null;
              comment: string | null;
              userId: string | null;
              apiKeyId: string | null;
              /** Format: date-time */
              createdAt: string;
            }[];
            nextCursor: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "labels.create": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          turnId: string;
          value: 1 | 0 | -1;
          hint?: string;
          exclude?: boolean;
          comment?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            turnId: string;
            /** @enum {string} */
            source: "REVIEWER" | "USER" | "JUDGE";
            value: number | null;
            hint: string | null;
            exclude: boolean | null;
            comment: string | null;
            userId: string | null;
            apiKeyId: string | null;
            /** Format: date-time */
            createdAt: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "labels.audit": {
    parameters: {
      query?: {
        cursor?: string;
        limit?: number;
        experimentId?: string;
        turnId?: string;
        action?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              action: string;
              resourceId: string;
              before: unknown;
              after: unknown;
              /** Format: date-time */
              createdAt: string;
              actor: string | null;
              actorKeyId: string | null;
              turnIndex: number | null;
              experimentId: string | null;
              experimentName: string | null;
            }[];
            nextCursor: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "review.queues": {
    parameters: {
      query?: {
        experimentId?: string;
        includeArchived?: boolean | ("0" | "1" | "true" | "false");
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            name: string;
            description: string;
            filter: {
              /** @enum {string} */
              status?: "FAILED" | "OK";
              /** @enum {string} */
              agreement?: "split" | "unanimous";
              policyVersion?: number | null;
              runId?: string;
              sessionId?: string;
              /** Format: date-time */
              from?: string;
              /** Format: date-time */
              to?: string;
              /** @enum {string} */
              turnType?: "MAIN" | "SIDE";
              /** @enum {string} */
              score?: "0" | "1" | "-1" | "unjudged";
              relabeled?: boolean;
              disputed?: boolean;
              q?: string;
            };
            reviewersPerItem: number | null;
            lockTtlS: number | null;
            assignees: string[];
            /** Format: date-time */
            createdAt: string;
            archivedAt: string | null;
            experimentName: string;
            pending: number | null;
            done: number | null;
            disputed: number | null;
            locked: number | null;
          }[];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "review.createQueue": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          experimentId: string;
          name: string;
          /** @default  */
          description?: string;
          filter?: {
            runId?: string;
            sessionId?: string;
            /** @enum {string} */
            turnType?: "MAIN" | "SIDE";
            /** @enum {string} */
            status?: "OK" | "FAILED";
            /** @enum {string} */
            score?: "0" | "1" | "-1" | "unjudged";
            /** @enum {string} */
            agreement?: "unanimous" | "split";
            relabeled?: boolean | ("0" | "1" | "true" | "false");
            disputed?: boolean | ("0" | "1" | "true" | "false");
            /** Format: date-time */
            from?: string;
            /** Format: date-time */
            to?: string;
            policyVersion?: number;
            endUserId?: string;
            q?: string;
          };
          /** @default 1 */
          reviewersPerItem?: number;
          /** @default 300 */
          lockTtlS?: number;
          /** @default [] */
          assignees?: string[];
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            name: string;
            description: string;
            filter: {
              /** @enum {string} */
              status?: "FAILED" | "OK";
              /** @enum {string} */
              agreement?: "split" | "unanimous";
              policyVersion?: number | null;
              runId?: string;
              sessionId?: string;
              /** Format: date-time */
              from?: string;
              /** Format: date-time */
              to?: string;
              /** @enum {string} */
              turnType?: "MAIN" | "SIDE";
              /** @enum {string} */
              score?: "0" | "1" | "-1" | "unjudged";
              relabeled?: boolean;
              disputed?: boolean;
              q?: string;
            };
            reviewersPerItem: number | null;
            lockTtlS: number | null;
            assignees: string[];
            /** Format: date-time */
            createdAt: string;
            archivedAt: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "metrics.points": {
    parameters: {
      query?: {
        experimentId?: string;
        runId?: string;
        names?: string | string[];
        since?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            points: {
              name: string;
              runId: string | null;
              step: number | null;
              value: number | null;
              ts: string;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "metrics.series": {
    parameters: {
      query: {
        experimentId: string;
        runIds: string | string[];
        names: string | string[];
        axis?: "step" | "time";
        from?: number;
        to?: number;
        maxPoints?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            axis: "step" | "time";
            series: {
              runId: string | null;
              name: string;
              /** @enum {string} */
              axis: "step" | "time";
              total: number | null;
              level: number | null;
              width: number | null;
              points: {
                x: number | null;
                last: number | null;
                min: number | null;
                max: number | null;
                mean: number | null;
                count: number | null;
                step: number | null;
                ts: number | null;
              }[];
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "metrics.catalog": {
    parameters: {
      query: {
        experimentId: string;
        runIds?: string | string[];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            runId: string | null;
            name: string;
            count: number | null;
            /** Format: date-time */
            lastTs: string;
            last: number | null;
            lastStep: number | null;
          }[];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "simulation.list": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            envEnabled: boolean;
            globalEnabled: boolean;
            items: {
              experiment: {
                id: string;
                slug: string;
                name: string;
                demo: boolean;
                /** @enum {string} */
                method: "grpo" | "opd" | "combine";
                activeRun: {
                  number: number | null;
                  id: string;
                  /** @enum {string} */
                  status: "PENDING" | "RUNNING" | "PAUSED" | "FINISHED" | "FAILED" | "CRASHED" | "KILLED";
                  lastStep: number | null;
                } | null;
              };
              enabled: boolean;
              settings: {
                perMinute: number | null;
                concurrency: number | null;
                personas: string[];
                seed: number | null;
                maxTurns: number | null;
              };
              updatedAt: string | null;
              stats: {
                experimentId: string;
                at: number | null;
                active: number | null;
                sessions: number | null;
                turns: number | null;
                turnsPerS: number | null;
                approvals: number | null;
                corrections: number | null;
                toolCalls: number | null;
                errors: number | null;
                lastError: string | null;
              } | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "simulation.setGlobal": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          enabled: boolean;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            globalEnabled: boolean;
            envEnabled: boolean;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "fleet.overview": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            queues:
              | unknown[]
              | {
                  name: string;
                  waiting: number | null;
                  active: number | null;
                  delayed: number | null;
                  failed: number | null;
                  lagMs: number | null;
                }[];
            problems: {
              experimentName: string | null;
              queue: string;
              jobId: string;
              experimentId: string | null;
              /** @enum {string} */
              state: "failed" | "retrying";
              attemptsMade: number | null;
              attempts: number | null;
              reason: string;
              stack: string | null;
              at: number | null;
            }[];
            backlogs: {
              lastError: string | null;
              experimentId: string;
              experimentName: string;
              judgeDepth: number | null;
              judgeLagMs: number | null;
            }[];
            gauges: {
              runId: string | null;
              experimentId: string;
              experimentName: string;
              runKey: string;
              name: string;
              value: number | null;
              /** Format: date-time */
              at: string;
            }[];
            runs: {
              id: string;
              number: number | null;
              /** @enum {string} */
              status: "PENDING" | "RUNNING" | "PAUSED" | "FINISHED" | "FAILED" | "CRASHED" | "KILLED";
              experimentId: string;
              experimentName: string;
              trainerBackend: string;
              gpu: {
                nodes: number | null;
                gpusPerNode: number | null;
                actorGpus: number | null;
                rolloutGpus: number | null;
                prmGpus: number | null;
                rolloutGpusPerEngine: number | null;
                prmGpusPerEngine: number | null;
                prmTeacherGpus: number | null;
                colocate: boolean;
              } | null;
              gpuSummary: string | null;
              pendingSamples: number | null;
              batchSize: number | null;
              lastStep: number | null;
              lastStepAt: string | null;
              startedAt: string | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.sets": {
    parameters: {
      query: {
        experimentId: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            name: string;
            description: string;
            latestVersion: number | null;
            versions: {
              id: string;
              version: number | null;
              source: string;
              items: number | null;
              createdAt: string;
            }[];
          }[];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.upload": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          experimentId: string;
          name: string;
          description?: string;
          jsonl: string;
          /**
           * @default replace
           * @enum {string}
           */
          mode?: "replace" | "append";
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            setId: string;
            setVersionId: string;
            version: number | null;
            items: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.addTurns": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          experimentId: string;
          name: string;
          turnIds: string[];
          rubric?: string;
          /** @default false */
          useReplyAsReference?: boolean;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            setId: string;
            setVersionId: string;
            version: number | null;
            items: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.personaSet": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          experimentId: string;
          /** @default held-out personas */
          name?: string;
          personas?: ("maya" | "leo" | "sam" | "ava")[];
          /**
           * @default heldOut
           * @enum {string}
           */
          questions?: "heldOut" | "asked";
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            setId: string;
            setVersionId: string;
            version: number | null;
            items: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.overview": {
    parameters: {
      query: {
        experimentId: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            experimentId: string;
            servedVersion: number | null;
            /** @enum {string} */
            promotion: "always" | "gated";
            gate: {
              tolerance: number | null;
              floor?: number | null;
              set?: string;
              confirm: boolean;
            };
            evaluationEnabled: boolean;
            set: {
              id: string;
              name: string;
              version: number | null;
              setVersionId: string;
              items: number | null;
            } | null;
            gateSet: {
              name: string;
              version: number | null;
              items: number | null;
            } | null;
            versions: {
              version: number | null;
              status: string;
              step: number | null;
              gateReason: string | null;
              evaluation: {
                id: string;
                version: number | null;
                status: string;
                grader: string;
                graderVersion: string;
                mean: number | null;
                ciLow: number | null;
                ciHigh: number | null;
                items: number | null;
                replies: number | null;
                promptTokens: number | null;
                replyTokens: number | null;
                durationMs: number | null;
                error: string | null;
                set: string;
                setVersionId: string;
                draw: number | null;
                finishedAt: string | null;
              } | null;
              gateEvaluation: {
                id: string;
                version: number | null;
                status: string;
                grader: string;
                graderVersion: string;
                mean: number | null;
                ciLow: number | null;
                ciHigh: number | null;
                items: number | null;
                replies: number | null;
                promptTokens: number | null;
                replyTokens: number | null;
                durationMs: number | null;
                error: string | null;
                set: string;
                setVersionId: string;
                draw: number | null;
                finishedAt: string | null;
              } | null;
              trainingReward: number | null;
              rewardTurns: number | null;
            }[];
            candidates: {
              version: number | null;
              reason: string | null;
              evaluation: {
                id: string;
                version: number | null;
                status: string;
                grader: string;
                graderVersion: string;
                mean: number | null;
                ciLow: number | null;
                ciHigh: number | null;
                items: number | null;
                replies: number | null;
                promptTokens: number | null;
                replyTokens: number | null;
                durationMs: number | null;
                error: string | null;
                set: string;
                setVersionId: string;
                draw: number | null;
                finishedAt: string | null;
              } | null;
            }[];
            recent: {
              id: string;
              version: number | null;
              status: string;
              grader: string;
              graderVersion: string;
              mean: number | null;
              ciLow: number | null;
              ciHigh: number | null;
              items: number | null;
              replies: number | null;
              promptTokens: number | null;
              replyTokens: number | null;
              durationMs: number | null;
              error: string | null;
              set: string;
              setVersionId: string;
              draw: number | null;
              finishedAt: string | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.request": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          experimentId: string;
          version: number;
        };
      };
    };
    responses: {
      /** @description Success */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            queued: boolean;
            version: number | null;
            setVersionId: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.taskPassRates": {
    parameters: {
      query: {
        experimentId: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            configured: boolean;
            k: number | null;
            taskSet: {
              id: string;
              name: string;
              version: number | null;
            } | null;
            environment: {
              id: string;
              name: string;
            } | null;
            heldOutTasks: number | null;
            versions: {
              version: number | null;
              status: string | null;
              gateReason: string | null;
              episodes: number | null;
              pending: number | null;
              failed: number | null;
              passAt1: {
                n: number | null;
                c: number | null;
                mean: number | null;
                low: number | null;
                high: number | null;
              };
              passAtK: {
                k: number | null;
                tasks: number | null;
                mean: number | null;
                low: number | null;
                high: number | null;
              };
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.compare": {
    parameters: {
      query: {
        experimentId: string;
        a: number;
        b: number;
        setVersionId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            setVersionId: string;
            a: {
              version: number | null;
              mean: number | null;
              ciLow: number | null;
              ciHigh: number | null;
              grader: string;
              graderVersion: string;
            };
            b: {
              version: number | null;
              mean: number | null;
              ciLow: number | null;
              ciHigh: number | null;
              grader: string;
              graderVersion: string;
            };
            items: {
              key: string;
              messages: unknown;
              persona: string | null;
              a: {
                mean: number | null;
                replies: {
                  sample: number | null;
                  reply: string;
                  score: number | null;
                  detail: unknown;
                }[];
              };
              b: {
                mean: number | null;
                replies: {
                  sample: number | null;
                  reply: string;
                  score: number | null;
                  detail: unknown;
                }[];
              };
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.learning": {
    parameters: {
      query: {
        experimentId: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            experimentId: string;
            /** @enum {string} */
            versionsOf: "policy" | "adapter";
            /** @enum {string} */
            verdict: "too early" | "learning" | "fitting the judge" | "flat" | "getting worse";
            reason: string;
            rule: string;
            judgedGain: number | null;
            heldOutGain: number | null;
            versions: {
              version: number | null;
              turns: number | null;
              reward: number | null;
              firstTurns: number | null;
              firstReward: number | null;
              heldOut: number | null;
              hinted: number | null;
              hintAcceptance: number | null;
            }[];
            stableEffect: {
              sessions: number | null;
              sessionsUntilStable: number | null;
              byUser: {
                user: string;
                sessions: number | null;
                sessionsUntilStable: number | null;
              }[];
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.agreement": {
    parameters: {
      query: {
        experimentId: string;
        disagreements?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            currentJudgeVersion: string;
            thresholds: {
              kappaThreshold: number | null;
              minLabeled: number | null;
            };
            warning: string | null;
            judges: {
              judgeVersion: string;
              judgeKind: string;
              model: string;
              disagreements: {
                turnId: string;
                sessionId: string;
                human: number | null;
                /** @enum {string} */
                humanSource: "REVIEWER" | "USER";
                judge: number | null;
                createdAt: string;
              }[];
              n: number | null;
              accuracy: number | null;
              kappa: number | null;
              confusion: (number | null)[][];
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "environments.list": {
    parameters: {
      query: {
        experiment: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            name: string;
            provider: string;
            limits: unknown;
            network: string;
            tools: unknown;
            pool: unknown;
            harness: unknown;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
          }[];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "environments.create": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          experiment: string;
          name: string;
          /**
           * @default local-bwrap
           * @enum {string}
           */
          provider?: "local-bwrap" | "docker" | "remote-pool";
          /**
           * @default {
           *       "cpuSeconds": 30,
           *       "memoryMb": 1024,
           *       "pids": 64,
           *       "fileSizeMb": 64,
           *       "tmpMb": 64,
           *       "wallSeconds": 120,
           *       "outputBytes": 16384
           *     }
           */
          limits?: {
            /** @default 30 */
            cpuSeconds?: number;
            /** @default 1024 */
            memoryMb?: number;
            /** @default 64 */
            pids?: number;
            /** @default 64 */
            fileSizeMb?: number;
            /** @default 64 */
            tmpMb?: number;
            /** @default 120 */
            wallSeconds?: number;
            /** @default 16384 */
            outputBytes?: number;
          };
          /**
           * @default none
           * @enum {string}
           */
          network?: "none";
          /**
           * @default [
           *       "bash"
           *     ]
           */
          tools?: ("bash" | "calc" | "lookup")[];
          pool?: {
            /** @enum {string} */
            protocol: "terminal" | "swe" | "gui";
            urls: string[];
          };
          harness?:
            | {
                /** @constant */
                kind: "openclaw";
                budget?: {
                  wallSeconds?: number;
                  turns?: number;
                  maxTokens?: number;
                };
              }
            | {
                /** @constant */
                kind: "custom";
                definition: {
                  name: string;
                  command: string;
                  /** @enum {string} */
                  instruction: "argument" | "file" | "stdin";
                  env: {
                    /** @default [] */
                    baseUrl?: string[];
                    /** @default [] */
                    apiKey?: string[];
                    /** @default [] */
                    model?: string[];
                    /** @default {} */
                    fixed?: {
                      [key: string]: string;
                    };
                  };
                  /** @default [] */
                  files?: {
                    path: string;
                    template: string;
                  }[];
                  budget: {
                    wallSeconds: number;
                    turns: number;
                    maxTokens: number;
                  };
                };
              };
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            name: string;
            provider: string;
            limits: unknown;
            network: string;
            tools: unknown;
            pool: unknown;
            harness: unknown;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "taskSets.list": {
    parameters: {
      query: {
        experiment: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            name: string;
            description: string;
            latestVersion: number | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
          }[];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "taskSets.import": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          experiment: string;
          name: string;
          description?: string;
          /** @enum {string} */
          format: "harbor" | "jsonl";
          archiveBase64?: string;
          text?: string;
          /** @default 0 */
          splitSeed?: number;
          /** @default 0.2 */
          heldOutFraction?: number;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            versionId: string;
            version: number | null;
            taskCount: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "episodes.list": {
    parameters: {
      query: {
        experiment: string;
        taskId?: string;
        environmentId?: string;
        launchId?: string;
        status?: "QUEUED" | "RUNNING" | "DONE" | "FAILED";
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            environmentId: string;
            taskId: string;
            groupKey: string | null;
            sampleIndex: number | null;
            /** @enum {string} */
            status: "QUEUED" | "RUNNING" | "DONE" | "FAILED";
            sessionId: string | null;
            leaseId: string | null;
            leaseProvider: string | null;
            outcome: number | null;
            outcomeDetail: unknown;
            truncation: string | null;
            error: string | null;
            estimator: string;
            prm: boolean;
            maxSteps: number | null;
            maxTokens: number | null;
            attempts: number | null;
            heartbeatAt: string | null;
            /** Format: date-time */
            createdAt: string;
            startedAt: string | null;
            finishedAt: string | null;
            standingLaunchId: string | null;
            task: {
              key: string;
              kind: string;
              split: string;
            };
          }[];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "episodes.launch": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          environmentId: string;
          taskSetId: string;
          version?: number;
          /**
           * @default train
           * @enum {string}
           */
          split?: "train" | "heldout" | "all";
          taskKeys?: string[];
          /** @default 8 */
          n?: number;
          /** @default 10 */
          maxSteps?: number;
          maxTokens?: number;
          /**
           * @default grpo
           * @enum {string}
           */
          estimator?: "grpo" | "step_wise";
          /** @default false */
          prm?: boolean;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            launchId: string;
            episodes: number | null;
            groups: number | null;
            taskSetId: string;
            version: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "standingLaunches.list": {
    parameters: {
      query: {
        experiment: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            environmentId: string;
            taskSetId: string;
            version: number | null;
            n: number | null;
            maxSteps: number | null;
            maxTokens: number | null;
            estimator: string;
            prm: boolean;
            maxGroupsInFlight: number | null;
            groupsLaunched: number | null;
            groupsInFlight: number | null;
            active: boolean;
            waitingForRun: boolean;
            stoppedAt: string | null;
            stopReason: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
          }[];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "standingLaunches.start": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          environmentId: string;
          taskSetId: string;
          version?: number;
          /** @default 8 */
          n?: number;
          /** @default 10 */
          maxSteps?: number;
          maxTokens?: number;
          /**
           * @default grpo
           * @enum {string}
           */
          estimator?: "grpo" | "step_wise";
          /** @default false */
          prm?: boolean;
          /** @default 4 */
          maxGroupsInFlight?: number;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            environmentId: string;
            taskSetId: string;
            version: number | null;
            n: number | null;
            maxSteps: number | null;
            maxTokens: number | null;
            estimator: string;
            prm: boolean;
            maxGroupsInFlight: number | null;
            groupsLaunched: number | null;
            groupsInFlight: number | null;
            active: boolean;
            waitingForRun: boolean;
            stoppedAt: string | null;
            stopReason: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "experiments.get": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            slug: string;
            name: string;
            description: string;
            /** @enum {string} */
            status: "ACTIVE" | "ARCHIVED";
            demo: boolean;
            config: {
              /**
               * @default combine
               * @enum {string}
               */
              method: "grpo" | "opd" | "combine";
              /**
               * @default {
               *       "kind": "embedded",
               *       "checkpoint": "models/base"
               *     }
               */
              policy:
                | {
                    /** @constant */
                    kind: "embedded";
                    /** @default models/base */
                    checkpoint: string;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "openai";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "sglang";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  };
              /**
               * @default {
               *       "backend": {
               *         "kind": "heuristic"
               *       },
               *       "votes": 3,
               *       "temperature": 0.6,
               *       "maxTokens": 4096,
               *       "includeRequest": false,
               *       "evalMode": true,
               *       "hintSelection": "longest",
               *       "chatTemplateKwargs": {}
               *     }
               */
              judge: {
                /**
                 * @default {
                 *       "kind": "heuristic"
                 *     }
                 */
                backend:
                  | {
                      /** @constant */
                      kind: "heuristic";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "openai";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "sglang";
                    }
                  | {
                      /** @constant */
                      kind: "custom";
                      modulePath: string;
                    };
                /** @default 3 */
                votes: number;
                /** @default 0.6 */
                temperature: number;
                /** @default 4096 */
                maxTokens: number;
                /** @default false */
                includeRequest: boolean;
                /** @default true */
                evalMode: boolean;
                /**
                 * @default longest
                 * @enum {string}
                 */
                hintSelection: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
                hintM?: number;
                chatTemplate?: string;
                /** @default {} */
                chatTemplateKwargs: {
                  [key: string]: string | number | boolean | null;
                };
              };
              /**
               * @default {
               *       "backend": "embedded",
               *       "gpu": {
               *         "nodes": 1,
               *         "gpusPerNode": 8,
               *         "actorGpus": 4,
               *         "rolloutGpus": 2,
               *         "prmGpus": 2,
               *         "rolloutGpusPerEngine": 2,
               *         "prmGpusPerEngine": 2,
               *         "prmTeacherGpus": 0,
               *         "colocate": false
               *       }
               *     }
               */
              trainer: {
                /**
                 * @default embedded
                 * @enum {string}
                 */
                backend: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
                /** @enum {string} */
                finetune?: "lora" | "full" | "auto";
                /**
                 * @default {
                 *       "nodes": 1,
                 *       "gpusPerNode": 8,
                 *       "actorGpus": 4,
                 *       "rolloutGpus": 2,
                 *       "prmGpus": 2,
                 *       "rolloutGpusPerEngine": 2,
                 *       "prmGpusPerEngine": 2,
                 *       "prmTeacherGpus": 0,
                 *       "colocate": false
                 *     }
                 */
                gpu: {
                  /** @default 1 */
                  nodes: number;
                  /** @default 8 */
                  gpusPerNode: number;
                  /** @default 4 */
                  actorGpus: number;
                  /** @default 2 */
                  rolloutGpus: number;
                  /** @default 2 */
                  prmGpus: number;
                  /** @default 2 */
                  rolloutGpusPerEngine: number;
                  /** @default 2 */
                  prmGpusPerEngine: number;
                  /** @default 0 */
                  prmTeacherGpus: number;
                  /** @default false */
                  colocate: boolean;
                };
                /** Format: uri */
                rayAddress?: string;
              };
              /**
               * @default {
               *       "lr": 0.00001,
               *       "epsClip": 0.2,
               *       "epsClipHigh": 0.28,
               *       "klCoef": 0,
               *       "entropyCoef": 0,
               *       "batchSize": 16,
               *       "wOpd": 1,
               *       "wRl": 1,
               *       "maxStaleness": 4,
               *       "stalePolicy": "drop",
               *       "keepCheckpoints": 5,
               *       "gradClip": 1,
               *       "opdEstimator": "sampled",
               *       "topK": 50,
               *       "teacherSource": "base",
               *       "advClamp": 0,
               *       "topkDiffClip": 1,
               *       "normalizeAdvantages": false,
               *       "advantageGroups": "batch",
               *       "ppoEpochs": 1,
               *       "baseKlCoef": 0,
               *       "opdExtrapolation": 1,
               *       "hindsightSamples": 0,
               *       "hindsightWeight": 0.5,
               *       "hindsightTarget": "sampled",
               *       "hindsightFocus": "uniform",
               *       "hindsightMinLogprob": -0.15,
               *       "hindsightSampleTemperature": 1,
               *       "stylePrompts": 0,
               *       "rememberedStyleHints": false,
               *       "hintMemory": false,
               *       "conversationHints": false,
               *       "userStyleHints": false,
               *       "dualClip": 0
               *     }
               */
              hyper: {
                /** @default 0.00001 */
                lr: number;
                /** @default 0.2 */
                epsClip: number;
                /** @default 0.28 */
                epsClipHigh: number;
                /** @default 0 */
                klCoef: number;
                /** @default 0 */
                entropyCoef: number;
                /** @default 16 */
                batchSize: number;
                /** @default 1 */
                wOpd: number;
                /** @default 1 */
                wRl: number;
                /** @default 4 */
                maxStaleness: number;
                /**
                 * @default drop
                 * @enum {string}
                 */
                stalePolicy: "drop" | "importance-weight";
                /** @default 5 */
                keepCheckpoints: number;
                /** @default 1 */
                gradClip: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                opdEstimator: "sampled" | "topk" | "full";
                /** @default 50 */
                topK: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                teacherSource: "base" | "current";
                /** @default 0 */
                advClamp: number;
                /** @default 1 */
                topkDiffClip: number;
                /** @default false */
                normalizeAdvantages: boolean;
                /**
                 * @default batch
                 * @enum {string}
                 */
                advantageGroups: "batch" | "context";
                /** @default 1 */
                ppoEpochs: number;
                /** @default 0 */
                baseKlCoef: number;
                /** @default 1 */
                opdExtrapolation: number;
                /** @default 0 */
                hindsightSamples: number;
                /** @default 0.5 */
                hindsightWeight: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default -0.15 */
                hindsightMinLogprob: number;
                /** @default 1 */
                hindsightSampleTemperature: number;
                hindsightMinGain?: number;
                /** @default 0 */
                stylePrompts: number;
                /** @default false */
                rememberedStyleHints: boolean;
                /** @default false */
                hintMemory: boolean;
                /** @default false */
                conversationHints: boolean;
                /** @default false */
                userStyleHints: boolean;
                /** @default 0 */
                dualClip: number;
              };
              /**
               * @default {
               *       "enabled": false,
               *       "rank": 16,
               *       "alpha": 32
               *     }
               */
              lora: {
                /** @default false */
                enabled: boolean;
                /** @default 16 */
                rank: number;
                /** @default 32 */
                alpha: number;
              };
              /**
               * @default {
               *       "defaultTurnType": "main",
               *       "sidePatterns": [],
               *       "contextPatterns": [],
               *       "maxTokens": 256,
               *       "promotion": "always",
               *       "gate": {
               *         "tolerance": 0.05,
               *         "confirm": false
               *       },
               *       "autoRollback": {
               *         "enabled": false,
               *         "margin": 0.3,
               *         "minTurns": 20
               *       }
               *     }
               */
              serving: {
                /**
                 * @default main
                 * @enum {string}
                 */
                defaultTurnType: "main" | "side";
                /** @default [] */
                sidePatterns: string[];
                /** @default [] */
                contextPatterns: string[];
                temperature?: number;
                /** @default 256 */
                maxTokens: number;
                /**
                 * @default always
                 * @enum {string}
                 */
                promotion: "always" | "gated";
                /**
                 * @default {
                 *       "tolerance": 0.05,
                 *       "confirm": false
                 *     }
                 */
                gate: {
                  /** @default 0.05 */
                  tolerance: number;
                  floor?: number;
                  set?: string;
                  /** @default false */
                  confirm: boolean;
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "margin": 0.3,
                 *       "minTurns": 20
                 *     }
                 */
                autoRollback: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 0.3 */
                  margin: number;
                  /** @default 20 */
                  minTurns: number;
                };
              };
              /**
               * @default {
               *       "enabled": false,
               *       "every": 1,
               *       "grader": "persona",
               *       "k": 2,
               *       "temperature": 0.7,
               *       "seed": 1,
               *       "maxTokens": 256,
               *       "votes": 3,
               *       "budget": {
               *         "maxReplyTokens": 20000,
               *         "maxSeconds": 600
               *       },
               *       "agreement": {
               *         "kappaThreshold": 0.6,
               *         "minLabeled": 30
               *       }
               *     }
               */
              evaluation: {
                /** @default false */
                enabled: boolean;
                /** @default 1 */
                every: number;
                set?: string;
                /**
                 * @default persona
                 * @enum {string}
                 */
                grader: "persona" | "judge" | "custom";
                graderPath?: string;
                /** @default 2 */
                k: number;
                /** @default 0.7 */
                temperature: number;
                /** @default 1 */
                seed: number;
                /** @default 256 */
                maxTokens: number;
                /** @default 3 */
                votes: number;
                tasks?: {
                  taskSet: string;
                  environment: string;
                  /** @default 4 */
                  k: number;
                  /** @default 4 */
                  maxSteps: number;
                };
                /**
                 * @default {
                 *       "maxReplyTokens": 20000,
                 *       "maxSeconds": 600
                 *     }
                 */
                budget: {
                  /** @default 20000 */
                  maxReplyTokens: number;
                  /** @default 600 */
                  maxSeconds: number;
                };
                /**
                 * @default {
                 *       "kappaThreshold": 0.6,
                 *       "minLabeled": 30
                 *     }
                 */
                agreement: {
                  /** @default 0.6 */
                  kappaThreshold: number;
                  /** @default 30 */
                  minLabeled: number;
                };
              };
              customLossPath?: string;
              /**
               * @default shared
               * @enum {string}
               */
              personalization: "shared" | "per-user";
              /**
               * @default {
               *       "rank": 8,
               *       "alpha": 16,
               *       "targets": "attention+mlp",
               *       "advantages": "positive",
               *       "lr": 1,
               *       "gradClip": 0.4,
               *       "hindsightSamples": 2,
               *       "hindsightWeight": 3,
               *       "hindsightMinLogprob": -0.15,
               *       "rememberedHint": true,
               *       "baseKlCoef": 0.03,
               *       "baseKlScope": "samples",
               *       "hindsightRelevance": false,
               *       "hindsightTarget": "teacher",
               *       "hindsightFocus": "uniform",
               *       "hindsightTemperature": 0.7,
               *       "stylePrompts": 32,
               *       "newUsers": "base",
               *       "minSamples": 16,
               *       "gateTolerance": 0.05,
               *       "heldOutFraction": 0.25,
               *       "maxSamplesPerVersion": 64,
               *       "idleAfterS": 0,
               *       "windowUtc": null
               *     }
               */
              perUser: {
                /** @default 8 */
                rank: number;
                /** @default 16 */
                alpha: number;
                /**
                 * @default attention+mlp
                 * @enum {string}
                 */
                targets: "attention" | "attention+mlp";
                /**
                 * @default positive
                 * @enum {string}
                 */
                advantages: "raw" | "centered" | "positive";
                /** @default 1 */
                lr: number;
                /** @default 0.4 */
                gradClip: number;
                /** @default 2 */
                hindsightSamples: number;
                /** @default 3 */
                hindsightWeight: number;
                /** @default -0.15 */
                hindsightMinLogprob: number;
                hindsightMinGain?: number;
                /** @default true */
                rememberedHint: boolean;
                /** @default 0.03 */
                baseKlCoef: number;
                /**
                 * @default samples
                 * @enum {string}
                 */
                baseKlScope: "samples" | "all";
                /** @default false */
                hindsightRelevance: boolean;
                /**
                 * @default teacher
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default 0.7 */
                hindsightTemperature: number;
                /** @default 32 */
                stylePrompts: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                newUsers: "base" | "shared";
                seed?: number;
                /** @default 16 */
                minSamples: number;
                /** @default 0.05 */
                gateTolerance: number;
                /** @default 0.25 */
                heldOutFraction: number;
                /** @default 64 */
                maxSamplesPerVersion: number;
                /** @default 0 */
                idleAfterS: number;
                /** @default null */
                windowUtc: {
                  from: number;
                  to: number;
                } | null;
              };
            };
            secretsSet: string[];
            createdAt: string;
            updatedAt: string;
            archivedAt: string | null;
            activeRun: {
              id: string;
              number: number | null;
              status: string;
            } | null;
            counts?: {
              runs: number | null;
              sessions: number | null;
              turns: number | null;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "experiments.delete": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            /** @constant */
            deleted: true;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "experiments.update": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name?: string;
          description?: string;
          config?: {
            /**
             * @default combine
             * @enum {string}
             */
            method?: "grpo" | "opd" | "combine";
            /**
             * @default {
             *       "kind": "embedded",
             *       "checkpoint": "models/base"
             *     }
             */
            policy?:
              | {
                  /** @constant */
                  kind: "embedded";
                  /** @default models/base */
                  checkpoint?: string;
                }
              | {
                  /** Format: uri */
                  baseUrl: string;
                  model: string;
                  apiKey?: string;
                  /** @constant */
                  kind: "openai";
                  /** @enum {string} */
                  loraAdapters?: "sglang" | "vllm";
                  loraMaxLoaded?: number;
                }
              | {
                  /** Format: uri */
                  baseUrl: string;
                  model: string;
                  apiKey?: string;
                  /** @constant */
                  kind: "sglang";
                  /** @enum {string} */
                  loraAdapters?: "sglang" | "vllm";
                  loraMaxLoaded?: number;
                };
            /**
             * @default {
             *       "backend": {
             *         "kind": "heuristic"
             *       },
             *       "votes": 3,
             *       "temperature": 0.6,
             *       "maxTokens": 4096,
             *       "includeRequest": false,
             *       "evalMode": true,
             *       "hintSelection": "longest",
             *       "chatTemplateKwargs": {}
             *     }
             */
            judge?: {
              /**
               * @default {
               *       "kind": "heuristic"
               *     }
               */
              backend?:
                | {
                    /** @constant */
                    kind: "heuristic";
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "openai";
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "sglang";
                  }
                | {
                    /** @constant */
                    kind: "custom";
                    modulePath: string;
                  };
              /** @default 3 */
              votes?: number;
              /** @default 0.6 */
              temperature?: number;
              /** @default 4096 */
              maxTokens?: number;
              /** @default false */
              includeRequest?: boolean;
              /** @default true */
              evalMode?: boolean;
              /**
               * @default longest
               * @enum {string}
               */
              hintSelection?: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
              hintM?: number;
              chatTemplate?: string;
              /** @default {} */
              chatTemplateKwargs?: {
                [key: string]: string | number | boolean | null;
              };
            };
            /**
             * @default {
             *       "backend": "embedded",
             *       "gpu": {
             *         "nodes": 1,
             *         "gpusPerNode": 8,
             *         "actorGpus": 4,
             *         "rolloutGpus": 2,
             *         "prmGpus": 2,
             *         "rolloutGpusPerEngine": 2,
             *         "prmGpusPerEngine": 2,
             *         "prmTeacherGpus": 0,
             *         "colocate": false
             *       }
             *     }
             */
            trainer?: {
              /**
               * @default embedded
               * @enum {string}
               */
              backend?: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
              /** @enum {string} */
              finetune?: "lora" | "full" | "auto";
              /**
               * @default {
               *       "nodes": 1,
               *       "gpusPerNode": 8,
               *       "actorGpus": 4,
               *       "rolloutGpus": 2,
               *       "prmGpus": 2,
               *       "rolloutGpusPerEngine": 2,
               *       "prmGpusPerEngine": 2,
               *       "prmTeacherGpus": 0,
               *       "colocate": false
               *     }
               */
              gpu?: {
                /** @default 1 */
                nodes?: number;
                /** @default 8 */
                gpusPerNode?: number;
                /** @default 4 */
                actorGpus?: number;
                /** @default 2 */
                rolloutGpus?: number;
                /** @default 2 */
                prmGpus?: number;
                /** @default 2 */
                rolloutGpusPerEngine?: number;
                /** @default 2 */
                prmGpusPerEngine?: number;
                /** @default 0 */
                prmTeacherGpus?: number;
                /** @default false */
                colocate?: boolean;
              };
              /** Format: uri */
              rayAddress?: string;
            };
            /**
             * @default {
             *       "lr": 0.00001,
             *       "epsClip": 0.2,
             *       "epsClipHigh": 0.28,
             *       "klCoef": 0,
             *       "entropyCoef": 0,
             *       "batchSize": 16,
             *       "wOpd": 1,
             *       "wRl": 1,
             *       "maxStaleness": 4,
             *       "stalePolicy": "drop",
             *       "keepCheckpoints": 5,
             *       "gradClip": 1,
             *       "opdEstimator": "sampled",
             *       "topK": 50,
             *       "teacherSource": "base",
             *       "advClamp": 0,
             *       "topkDiffClip": 1,
             *       "normalizeAdvantages": false,
             *       "advantageGroups": "batch",
             *       "ppoEpochs": 1,
             *       "baseKlCoef": 0,
             *       "opdExtrapolation": 1,
             *       "hindsightSamples": 0,
             *       "hindsightWeight": 0.5,
             *       "hindsightTarget": "sampled",
             *       "hindsightFocus": "uniform",
             *       "hindsightMinLogprob": -0.15,
             *       "hindsightSampleTemperature": 1,
             *       "stylePrompts": 0,
             *       "rememberedStyleHints": false,
             *       "hintMemory": false,
             *       "conversationHints": false,
             *       "userStyleHints": false,
             *       "dualClip": 0
             *     }
             */
            hyper?: {
              /** @default 0.00001 */
              lr?: number;
              /** @default 0.2 */
              epsClip?: number;
              /** @default 0.28 */
              epsClipHigh?: number;
              /** @default 0 */
              klCoef?: number;
              /** @default 0 */
              entropyCoef?: number;
              /** @default 16 */
              batchSize?: number;
              /** @default 1 */
              wOpd?: number;
              /** @default 1 */
              wRl?: number;
              /** @default 4 */
              maxStaleness?: number;
              /**
               * @default drop
               * @enum {string}
               */
              stalePolicy?: "drop" | "importance-weight";
              /** @default 5 */
              keepCheckpoints?: number;
              /** @default 1 */
              gradClip?: number;
              /**
               * @default sampled
               * @enum {string}
               */
              opdEstimator?: "sampled" | "topk" | "full";
              /** @default 50 */
              topK?: number;
              /**
               * @default base
               * @enum {string}
               */
              teacherSource?: "base" | "current";
              /** @default 0 */
              advClamp?: number;
              /** @default 1 */
              topkDiffClip?: number;
              /** @default false */
              normalizeAdvantages?: boolean;
              /**
               * @default batch
               * @enum {string}
               */
              advantageGroups?: "batch" | "context";
              /** @default 1 */
              ppoEpochs?: number;
              /** @default 0 */
              baseKlCoef?: number;
              /** @default 1 */
              opdExtrapolation?: number;
              /** @default 0 */
              hindsightSamples?: number;
              /** @default 0.5 */
              hindsightWeight?: number;
              /**
               * @default sampled
               * @enum {string}
               */
              hindsightTarget?: "sampled" | "teacher";
              /**
               * @default uniform
               * @enum {string}
               */
              hindsightFocus?: "uniform" | "hint";
              /** @default -0.15 */
              hindsightMinLogprob?: number;
              /** @default 1 */
              hindsightSampleTemperature?: number;
              hindsightMinGain?: number;
              /** @default 0 */
              stylePrompts?: number;
              /** @default false */
              rememberedStyleHints?: boolean;
              /** @default false */
              hintMemory?: boolean;
              /** @default false */
              conversationHints?: boolean;
              /** @default false */
              userStyleHints?: boolean;
              /** @default 0 */
              dualClip?: number;
            };
            /**
             * @default {
             *       "enabled": false,
             *       "rank": 16,
             *       "alpha": 32
             *     }
             */
            lora?: {
              /** @default false */
              enabled?: boolean;
              /** @default 16 */
              rank?: number;
              /** @default 32 */
              alpha?: number;
            };
            /**
             * @default {
             *       "defaultTurnType": "main",
             *       "sidePatterns": [],
             *       "contextPatterns": [],
             *       "maxTokens": 256,
             *       "promotion": "always",
             *       "gate": {
             *         "tolerance": 0.05,
             *         "confirm": false
             *       },
             *       "autoRollback": {
             *         "enabled": false,
             *         "margin": 0.3,
             *         "minTurns": 20
             *       }
             *     }
             */
            serving?: {
              /**
               * @default main
               * @enum {string}
               */
              defaultTurnType?: "main" | "side";
              /** @default [] */
              sidePatterns?: string[];
              /** @default [] */
              contextPatterns?: string[];
              temperature?: number;
              /** @default 256 */
              maxTokens?: number;
              /**
               * @default always
               * @enum {string}
               */
              promotion?: "always" | "gated";
              /**
               * @default {
               *       "tolerance": 0.05,
               *       "confirm": false
               *     }
               */
              gate?: {
                /** @default 0.05 */
                tolerance?: number;
                floor?: number;
                set?: string;
                /** @default false */
                confirm?: boolean;
              };
              /**
               * @default {
               *       "enabled": false,
               *       "margin": 0.3,
               *       "minTurns": 20
               *     }
               */
              autoRollback?: {
                /** @default false */
                enabled?: boolean;
                /** @default 0.3 */
                margin?: number;
                /** @default 20 */
                minTurns?: number;
              };
            };
            /**
             * @default {
             *       "enabled": false,
             *       "every": 1,
             *       "grader": "persona",
             *       "k": 2,
             *       "temperature": 0.7,
             *       "seed": 1,
             *       "maxTokens": 256,
             *       "votes": 3,
             *       "budget": {
             *         "maxReplyTokens": 20000,
             *         "maxSeconds": 600
             *       },
             *       "agreement": {
             *         "kappaThreshold": 0.6,
             *         "minLabeled": 30
             *       }
             *     }
             */
            evaluation?: {
              /** @default false */
              enabled?: boolean;
              /** @default 1 */
              every?: number;
              set?: string;
              /**
               * @default persona
               * @enum {string}
               */
              grader?: "persona" | "judge" | "custom";
              graderPath?: string;
              /** @default 2 */
              k?: number;
              /** @default 0.7 */
              temperature?: number;
              /** @default 1 */
              seed?: number;
              /** @default 256 */
              maxTokens?: number;
              /** @default 3 */
              votes?: number;
              tasks?: {
                taskSet: string;
                environment: string;
                /** @default 4 */
                k?: number;
                /** @default 4 */
                maxSteps?: number;
              };
              /**
               * @default {
               *       "maxReplyTokens": 20000,
               *       "maxSeconds": 600
               *     }
               */
              budget?: {
                /** @default 20000 */
                maxReplyTokens?: number;
                /** @default 600 */
                maxSeconds?: number;
              };
              /**
               * @default {
               *       "kappaThreshold": 0.6,
               *       "minLabeled": 30
               *     }
               */
              agreement?: {
                /** @default 0.6 */
                kappaThreshold?: number;
                /** @default 30 */
                minLabeled?: number;
              };
            };
            customLossPath?: string;
            /**
             * @default shared
             * @enum {string}
             */
            personalization?: "shared" | "per-user";
            /**
             * @default {
             *       "rank": 8,
             *       "alpha": 16,
             *       "targets": "attention+mlp",
             *       "advantages": "positive",
             *       "lr": 1,
             *       "gradClip": 0.4,
             *       "hindsightSamples": 2,
             *       "hindsightWeight": 3,
             *       "hindsightMinLogprob": -0.15,
             *       "rememberedHint": true,
             *       "baseKlCoef": 0.03,
             *       "baseKlScope": "samples",
             *       "hindsightRelevance": false,
             *       "hindsightTarget": "teacher",
             *       "hindsightFocus": "uniform",
             *       "hindsightTemperature": 0.7,
             *       "stylePrompts": 32,
             *       "newUsers": "base",
             *       "minSamples": 16,
             *       "gateTolerance": 0.05,
             *       "heldOutFraction": 0.25,
             *       "maxSamplesPerVersion": 64,
             *       "idleAfterS": 0,
             *       "windowUtc": null
             *     }
             */
            perUser?: {
              /** @default 8 */
              rank?: number;
              /** @default 16 */
              alpha?: number;
              /**
               * @default attention+mlp
               * @enum {string}
               */
              targets?: "attention" | "attention+mlp";
              /**
               * @default positive
               * @enum {string}
               */
              advantages?: "raw" | "centered" | "positive";
              /** @default 1 */
              lr?: number;
              /** @default 0.4 */
              gradClip?: number;
              /** @default 2 */
              hindsightSamples?: number;
              /** @default 3 */
              hindsightWeight?: number;
              /** @default -0.15 */
              hindsightMinLogprob?: number;
              hindsightMinGain?: number;
              /** @default true */
              rememberedHint?: boolean;
              /** @default 0.03 */
              baseKlCoef?: number;
              /**
               * @default samples
               * @enum {string}
               */
              baseKlScope?: "samples" | "all";
              /** @default false */
              hindsightRelevance?: boolean;
              /**
               * @default teacher
               * @enum {string}
               */
              hindsightTarget?: "sampled" | "teacher";
              /**
               * @default uniform
               * @enum {string}
               */
              hindsightFocus?: "uniform" | "hint";
              /** @default 0.7 */
              hindsightTemperature?: number;
              /** @default 32 */
              stylePrompts?: number;
              /**
               * @default base
               * @enum {string}
               */
              newUsers?: "base" | "shared";
              seed?: number;
              /** @default 16 */
              minSamples?: number;
              /** @default 0.05 */
              gateTolerance?: number;
              /** @default 0.25 */
              heldOutFraction?: number;
              /** @default 64 */
              maxSamplesPerVersion?: number;
              /** @default 0 */
              idleAfterS?: number;
              /** @default null */
              windowUtc?: {
                from: number;
                to: number;
              } | null;
            };
          };
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            slug: string;
            name: string;
            description: string;
            /** @enum {string} */
            status: "ACTIVE" | "ARCHIVED";
            demo: boolean;
            config: {
              /**
               * @default combine
               * @enum {string}
               */
              method: "grpo" | "opd" | "combine";
              /**
               * @default {
               *       "kind": "embedded",
               *       "checkpoint": "models/base"
               *     }
               */
              policy:
                | {
                    /** @constant */
                    kind: "embedded";
                    /** @default models/base */
                    checkpoint: string;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "openai";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "sglang";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  };
              /**
               * @default {
               *       "backend": {
               *         "kind": "heuristic"
               *       },
               *       "votes": 3,
               *       "temperature": 0.6,
               *       "maxTokens": 4096,
               *       "includeRequest": false,
               *       "evalMode": true,
               *       "hintSelection": "longest",
               *       "chatTemplateKwargs": {}
               *     }
               */
              judge: {
                /**
                 * @default {
                 *       "kind": "heuristic"
                 *     }
                 */
                backend:
                  | {
                      /** @constant */
                      kind: "heuristic";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "openai";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "sglang";
                    }
                  | {
                      /** @constant */
                      kind: "custom";
                      modulePath: string;
                    };
                /** @default 3 */
                votes: number;
                /** @default 0.6 */
                temperature: number;
                /** @default 4096 */
                maxTokens: number;
                /** @default false */
                includeRequest: boolean;
                /** @default true */
                evalMode: boolean;
                /**
                 * @default longest
                 * @enum {string}
                 */
                hintSelection: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
                hintM?: number;
                chatTemplate?: string;
                /** @default {} */
                chatTemplateKwargs: {
                  [key: string]: string | number | boolean | null;
                };
              };
              /**
               * @default {
               *       "backend": "embedded",
               *       "gpu": {
               *         "nodes": 1,
               *         "gpusPerNode": 8,
               *         "actorGpus": 4,
               *         "rolloutGpus": 2,
               *         "prmGpus": 2,
               *         "rolloutGpusPerEngine": 2,
               *         "prmGpusPerEngine": 2,
               *         "prmTeacherGpus": 0,
               *         "colocate": false
               *       }
               *     }
               */
              trainer: {
                /**
                 * @default embedded
                 * @enum {string}
                 */
                backend: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
                /** @enum {string} */
                finetune?: "lora" | "full" | "auto";
                /**
                 * @default {
                 *       "nodes": 1,
                 *       "gpusPerNode": 8,
                 *       "actorGpus": 4,
                 *       "rolloutGpus": 2,
                 *       "prmGpus": 2,
                 *       "rolloutGpusPerEngine": 2,
                 *       "prmGpusPerEngine": 2,
                 *       "prmTeacherGpus": 0,
                 *       "colocate": false
                 *     }
                 */
                gpu: {
                  /** @default 1 */
                  nodes: number;
                  /** @default 8 */
                  gpusPerNode: number;
                  /** @default 4 */
                  actorGpus: number;
                  /** @default 2 */
                  rolloutGpus: number;
                  /** @default 2 */
                  prmGpus: number;
                  /** @default 2 */
                  rolloutGpusPerEngine: number;
                  /** @default 2 */
                  prmGpusPerEngine: number;
                  /** @default 0 */
                  prmTeacherGpus: number;
                  /** @default false */
                  colocate: boolean;
                };
                /** Format: uri */
                rayAddress?: string;
              };
              /**
               * @default {
               *       "lr": 0.00001,
               *       "epsClip": 0.2,
               *       "epsClipHigh": 0.28,
               *       "klCoef": 0,
               *       "entropyCoef": 0,
               *       "batchSize": 16,
               *       "wOpd": 1,
               *       "wRl": 1,
               *       "maxStaleness": 4,
               *       "stalePolicy": "drop",
               *       "keepCheckpoints": 5,
               *       "gradClip": 1,
               *       "opdEstimator": "sampled",
               *       "topK": 50,
               *       "teacherSource": "base",
               *       "advClamp": 0,
               *       "topkDiffClip": 1,
               *       "normalizeAdvantages": false,
               *       "advantageGroups": "batch",
               *       "ppoEpochs": 1,
               *       "baseKlCoef": 0,
               *       "opdExtrapolation": 1,
               *       "hindsightSamples": 0,
               *       "hindsightWeight": 0.5,
               *       "hindsightTarget": "sampled",
               *       "hindsightFocus": "uniform",
               *       "hindsightMinLogprob": -0.15,
               *       "hindsightSampleTemperature": 1,
               *       "stylePrompts": 0,
               *       "rememberedStyleHints": false,
               *       "hintMemory": false,
               *       "conversationHints": false,
               *       "userStyleHints": false,
               *       "dualClip": 0
               *     }
               */
              hyper: {
                /** @default 0.00001 */
                lr: number;
                /** @default 0.2 */
                epsClip: number;
                /** @default 0.28 */
                epsClipHigh: number;
                /** @default 0 */
                klCoef: number;
                /** @default 0 */
                entropyCoef: number;
                /** @default 16 */
                batchSize: number;
                /** @default 1 */
                wOpd: number;
                /** @default 1 */
                wRl: number;
                /** @default 4 */
                maxStaleness: number;
                /**
                 * @default drop
                 * @enum {string}
                 */
                stalePolicy: "drop" | "importance-weight";
                /** @default 5 */
                keepCheckpoints: number;
                /** @default 1 */
                gradClip: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                opdEstimator: "sampled" | "topk" | "full";
                /** @default 50 */
                topK: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                teacherSource: "base" | "current";
                /** @default 0 */
                advClamp: number;
                /** @default 1 */
                topkDiffClip: number;
                /** @default false */
                normalizeAdvantages: boolean;
                /**
                 * @default batch
                 * @enum {string}
                 */
                advantageGroups: "batch" | "context";
                /** @default 1 */
                ppoEpochs: number;
                /** @default 0 */
                baseKlCoef: number;
                /** @default 1 */
                opdExtrapolation: number;
                /** @default 0 */
                hindsightSamples: number;
                /** @default 0.5 */
                hindsightWeight: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default -0.15 */
                hindsightMinLogprob: number;
                /** @default 1 */
                hindsightSampleTemperature: number;
                hindsightMinGain?: number;
                /** @default 0 */
                stylePrompts: number;
                /** @default false */
                rememberedStyleHints: boolean;
                /** @default false */
                hintMemory: boolean;
                /** @default false */
                conversationHints: boolean;
                /** @default false */
                userStyleHints: boolean;
                /** @default 0 */
                dualClip: number;
              };
              /**
               * @default {
               *       "enabled": false,
               *       "rank": 16,
               *       "alpha": 32
               *     }
               */
              lora: {
                /** @default false */
                enabled: boolean;
                /** @default 16 */
                rank: number;
                /** @default 32 */
                alpha: number;
              };
              /**
               * @default {
               *       "defaultTurnType": "main",
               *       "sidePatterns": [],
               *       "contextPatterns": [],
               *       "maxTokens": 256,
               *       "promotion": "always",
               *       "gate": {
               *         "tolerance": 0.05,
               *         "confirm": false
               *       },
               *       "autoRollback": {
               *         "enabled": false,
               *         "margin": 0.3,
               *         "minTurns": 20
               *       }
               *     }
               */
              serving: {
                /**
                 * @default main
                 * @enum {string}
                 */
                defaultTurnType: "main" | "side";
                /** @default [] */
                sidePatterns: string[];
                /** @default [] */
                contextPatterns: string[];
                temperature?: number;
                /** @default 256 */
                maxTokens: number;
                /**
                 * @default always
                 * @enum {string}
                 */
                promotion: "always" | "gated";
                /**
                 * @default {
                 *       "tolerance": 0.05,
                 *       "confirm": false
                 *     }
                 */
                gate: {
                  /** @default 0.05 */
                  tolerance: number;
                  floor?: number;
                  set?: string;
                  /** @default false */
                  confirm: boolean;
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "margin": 0.3,
                 *       "minTurns": 20
                 *     }
                 */
                autoRollback: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 0.3 */
                  margin: number;
                  /** @default 20 */
                  minTurns: number;
                };
              };
              /**
               * @default {
               *       "enabled": false,
               *       "every": 1,
               *       "grader": "persona",
               *       "k": 2,
               *       "temperature": 0.7,
               *       "seed": 1,
               *       "maxTokens": 256,
               *       "votes": 3,
               *       "budget": {
               *         "maxReplyTokens": 20000,
               *         "maxSeconds": 600
               *       },
               *       "agreement": {
               *         "kappaThreshold": 0.6,
               *         "minLabeled": 30
               *       }
               *     }
               */
              evaluation: {
                /** @default false */
                enabled: boolean;
                /** @default 1 */
                every: number;
                set?: string;
                /**
                 * @default persona
                 * @enum {string}
                 */
                grader: "persona" | "judge" | "custom";
                graderPath?: string;
                /** @default 2 */
                k: number;
                /** @default 0.7 */
                temperature: number;
                /** @default 1 */
                seed: number;
                /** @default 256 */
                maxTokens: number;
                /** @default 3 */
                votes: number;
                tasks?: {
                  taskSet: string;
                  environment: string;
                  /** @default 4 */
                  k: number;
                  /** @default 4 */
                  maxSteps: number;
                };
                /**
                 * @default {
                 *       "maxReplyTokens": 20000,
                 *       "maxSeconds": 600
                 *     }
                 */
                budget: {
                  /** @default 20000 */
                  maxReplyTokens: number;
                  /** @default 600 */
                  maxSeconds: number;
                };
                /**
                 * @default {
                 *       "kappaThreshold": 0.6,
                 *       "minLabeled": 30
                 *     }
                 */
                agreement: {
                  /** @default 0.6 */
                  kappaThreshold: number;
                  /** @default 30 */
                  minLabeled: number;
                };
              };
              customLossPath?: string;
              /**
               * @default shared
               * @enum {string}
               */
              personalization: "shared" | "per-user";
              /**
               * @default {
               *       "rank": 8,
               *       "alpha": 16,
               *       "targets": "attention+mlp",
               *       "advantages": "positive",
               *       "lr": 1,
               *       "gradClip": 0.4,
               *       "hindsightSamples": 2,
               *       "hindsightWeight": 3,
               *       "hindsightMinLogprob": -0.15,
               *       "rememberedHint": true,
               *       "baseKlCoef": 0.03,
               *       "baseKlScope": "samples",
               *       "hindsightRelevance": false,
               *       "hindsightTarget": "teacher",
               *       "hindsightFocus": "uniform",
               *       "hindsightTemperature": 0.7,
               *       "stylePrompts": 32,
               *       "newUsers": "base",
               *       "minSamples": 16,
               *       "gateTolerance": 0.05,
               *       "heldOutFraction": 0.25,
               *       "maxSamplesPerVersion": 64,
               *       "idleAfterS": 0,
               *       "windowUtc": null
               *     }
               */
              perUser: {
                /** @default 8 */
                rank: number;
                /** @default 16 */
                alpha: number;
                /**
                 * @default attention+mlp
                 * @enum {string}
                 */
                targets: "attention" | "attention+mlp";
                /**
                 * @default positive
                 * @enum {string}
                 */
                advantages: "raw" | "centered" | "positive";
                /** @default 1 */
                lr: number;
                /** @default 0.4 */
                gradClip: number;
                /** @default 2 */
                hindsightSamples: number;
                /** @default 3 */
                hindsightWeight: number;
                /** @default -0.15 */
                hindsightMinLogprob: number;
                hindsightMinGain?: number;
                /** @default true */
                rememberedHint: boolean;
                /** @default 0.03 */
                baseKlCoef: number;
                /**
                 * @default samples
                 * @enum {string}
                 */
                baseKlScope: "samples" | "all";
                /** @default false */
                hindsightRelevance: boolean;
                /**
                 * @default teacher
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default 0.7 */
                hindsightTemperature: number;
                /** @default 32 */
                stylePrompts: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                newUsers: "base" | "shared";
                seed?: number;
                /** @default 16 */
                minSamples: number;
                /** @default 0.05 */
                gateTolerance: number;
                /** @default 0.25 */
                heldOutFraction: number;
                /** @default 64 */
                maxSamplesPerVersion: number;
                /** @default 0 */
                idleAfterS: number;
                /** @default null */
                windowUtc: {
                  from: number;
                  to: number;
                } | null;
              };
            };
            secretsSet: string[];
            createdAt: string;
            updatedAt: string;
            archivedAt: string | null;
            activeRun: {
              id: string;
              number: number | null;
              status: string;
            } | null;
            counts?: {
              runs: number | null;
              sessions: number | null;
              turns: number | null;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "experiments.clone": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name?: string;
          slug?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            slug: string;
            name: string;
            description: string;
            /** @enum {string} */
            status: "ACTIVE" | "ARCHIVED";
            demo: boolean;
            config: {
              /**
               * @default combine
               * @enum {string}
               */
              method: "grpo" | "opd" | "combine";
              /**
               * @default {
               *       "kind": "embedded",
               *       "checkpoint": "models/base"
               *     }
               */
              policy:
                | {
                    /** @constant */
                    kind: "embedded";
                    /** @default models/base */
                    checkpoint: string;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "openai";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "sglang";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  };
              /**
               * @default {
               *       "backend": {
               *         "kind": "heuristic"
               *       },
               *       "votes": 3,
               *       "temperature": 0.6,
               *       "maxTokens": 4096,
               *       "includeRequest": false,
               *       "evalMode": true,
               *       "hintSelection": "longest",
               *       "chatTemplateKwargs": {}
               *     }
               */
              judge: {
                /**
                 * @default {
                 *       "kind": "heuristic"
                 *     }
                 */
                backend:
                  | {
                      /** @constant */
                      kind: "heuristic";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "openai";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "sglang";
                    }
                  | {
                      /** @constant */
                      kind: "custom";
                      modulePath: string;
                    };
                /** @default 3 */
                votes: number;
                /** @default 0.6 */
                temperature: number;
                /** @default 4096 */
                maxTokens: number;
                /** @default false */
                includeRequest: boolean;
                /** @default true */
                evalMode: boolean;
                /**
                 * @default longest
                 * @enum {string}
                 */
                hintSelection: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
                hintM?: number;
                chatTemplate?: string;
                /** @default {} */
                chatTemplateKwargs: {
                  [key: string]: string | number | boolean | null;
                };
              };
              /**
               * @default {
               *       "backend": "embedded",
               *       "gpu": {
               *         "nodes": 1,
               *         "gpusPerNode": 8,
               *         "actorGpus": 4,
               *         "rolloutGpus": 2,
               *         "prmGpus": 2,
               *         "rolloutGpusPerEngine": 2,
               *         "prmGpusPerEngine": 2,
               *         "prmTeacherGpus": 0,
               *         "colocate": false
               *       }
               *     }
               */
              trainer: {
                /**
                 * @default embedded
                 * @enum {string}
                 */
                backend: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
                /** @enum {string} */
                finetune?: "lora" | "full" | "auto";
                /**
                 * @default {
                 *       "nodes": 1,
                 *       "gpusPerNode": 8,
                 *       "actorGpus": 4,
                 *       "rolloutGpus": 2,
                 *       "prmGpus": 2,
                 *       "rolloutGpusPerEngine": 2,
                 *       "prmGpusPerEngine": 2,
                 *       "prmTeacherGpus": 0,
                 *       "colocate": false
                 *     }
                 */
                gpu: {
                  /** @default 1 */
                  nodes: number;
                  /** @default 8 */
                  gpusPerNode: number;
                  /** @default 4 */
                  actorGpus: number;
                  /** @default 2 */
                  rolloutGpus: number;
                  /** @default 2 */
                  prmGpus: number;
                  /** @default 2 */
                  rolloutGpusPerEngine: number;
                  /** @default 2 */
                  prmGpusPerEngine: number;
                  /** @default 0 */
                  prmTeacherGpus: number;
                  /** @default false */
                  colocate: boolean;
                };
                /** Format: uri */
                rayAddress?: string;
              };
              /**
               * @default {
               *       "lr": 0.00001,
               *       "epsClip": 0.2,
               *       "epsClipHigh": 0.28,
               *       "klCoef": 0,
               *       "entropyCoef": 0,
               *       "batchSize": 16,
               *       "wOpd": 1,
               *       "wRl": 1,
               *       "maxStaleness": 4,
               *       "stalePolicy": "drop",
               *       "keepCheckpoints": 5,
               *       "gradClip": 1,
               *       "opdEstimator": "sampled",
               *       "topK": 50,
               *       "teacherSource": "base",
               *       "advClamp": 0,
               *       "topkDiffClip": 1,
               *       "normalizeAdvantages": false,
               *       "advantageGroups": "batch",
               *       "ppoEpochs": 1,
               *       "baseKlCoef": 0,
               *       "opdExtrapolation": 1,
               *       "hindsightSamples": 0,
               *       "hindsightWeight": 0.5,
               *       "hindsightTarget": "sampled",
               *       "hindsightFocus": "uniform",
               *       "hindsightMinLogprob": -0.15,
               *       "hindsightSampleTemperature": 1,
               *       "stylePrompts": 0,
               *       "rememberedStyleHints": false,
               *       "hintMemory": false,
               *       "conversationHints": false,
               *       "userStyleHints": false,
               *       "dualClip": 0
               *     }
               */
              hyper: {
                /** @default 0.00001 */
                lr: number;
                /** @default 0.2 */
                epsClip: number;
                /** @default 0.28 */
                epsClipHigh: number;
                /** @default 0 */
                klCoef: number;
                /** @default 0 */
                entropyCoef: number;
                /** @default 16 */
                batchSize: number;
                /** @default 1 */
                wOpd: number;
                /** @default 1 */
                wRl: number;
                /** @default 4 */
                maxStaleness: number;
                /**
                 * @default drop
                 * @enum {string}
                 */
                stalePolicy: "drop" | "importance-weight";
                /** @default 5 */
                keepCheckpoints: number;
                /** @default 1 */
                gradClip: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                opdEstimator: "sampled" | "topk" | "full";
                /** @default 50 */
                topK: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                teacherSource: "base" | "current";
                /** @default 0 */
                advClamp: number;
                /** @default 1 */
                topkDiffClip: number;
                /** @default false */
                normalizeAdvantages: boolean;
                /**
                 * @default batch
                 * @enum {string}
                 */
                advantageGroups: "batch" | "context";
                /** @default 1 */
                ppoEpochs: number;
                /** @default 0 */
                baseKlCoef: number;
                /** @default 1 */
                opdExtrapolation: number;
                /** @default 0 */
                hindsightSamples: number;
                /** @default 0.5 */
                hindsightWeight: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default -0.15 */
                hindsightMinLogprob: number;
                /** @default 1 */
                hindsightSampleTemperature: number;
                hindsightMinGain?: number;
                /** @default 0 */
                stylePrompts: number;
                /** @default false */
                rememberedStyleHints: boolean;
                /** @default false */
                hintMemory: boolean;
                /** @default false */
                conversationHints: boolean;
                /** @default false */
                userStyleHints: boolean;
                /** @default 0 */
                dualClip: number;
              };
              /**
               * @default {
               *       "enabled": false,
               *       "rank": 16,
               *       "alpha": 32
               *     }
               */
              lora: {
                /** @default false */
                enabled: boolean;
                /** @default 16 */
                rank: number;
                /** @default 32 */
                alpha: number;
              };
              /**
               * @default {
               *       "defaultTurnType": "main",
               *       "sidePatterns": [],
               *       "contextPatterns": [],
               *       "maxTokens": 256,
               *       "promotion": "always",
               *       "gate": {
               *         "tolerance": 0.05,
               *         "confirm": false
               *       },
               *       "autoRollback": {
               *         "enabled": false,
               *         "margin": 0.3,
               *         "minTurns": 20
               *       }
               *     }
               */
              serving: {
                /**
                 * @default main
                 * @enum {string}
                 */
                defaultTurnType: "main" | "side";
                /** @default [] */
                sidePatterns: string[];
                /** @default [] */
                contextPatterns: string[];
                temperature?: number;
                /** @default 256 */
                maxTokens: number;
                /**
                 * @default always
                 * @enum {string}
                 */
                promotion: "always" | "gated";
                /**
                 * @default {
                 *       "tolerance": 0.05,
                 *       "confirm": false
                 *     }
                 */
                gate: {
                  /** @default 0.05 */
                  tolerance: number;
                  floor?: number;
                  set?: string;
                  /** @default false */
                  confirm: boolean;
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "margin": 0.3,
                 *       "minTurns": 20
                 *     }
                 */
                autoRollback: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 0.3 */
                  margin: number;
                  /** @default 20 */
                  minTurns: number;
                };
              };
              /**
               * @default {
               *       "enabled": false,
               *       "every": 1,
               *       "grader": "persona",
               *       "k": 2,
               *       "temperature": 0.7,
               *       "seed": 1,
               *       "maxTokens": 256,
               *       "votes": 3,
               *       "budget": {
               *         "maxReplyTokens": 20000,
               *         "maxSeconds": 600
               *       },
               *       "agreement": {
               *         "kappaThreshold": 0.6,
               *         "minLabeled": 30
               *       }
               *     }
               */
              evaluation: {
                /** @default false */
                enabled: boolean;
                /** @default 1 */
                every: number;
                set?: string;
                /**
                 * @default persona
                 * @enum {string}
                 */
                grader: "persona" | "judge" | "custom";
                graderPath?: string;
                /** @default 2 */
                k: number;
                /** @default 0.7 */
                temperature: number;
                /** @default 1 */
                seed: number;
                /** @default 256 */
                maxTokens: number;
                /** @default 3 */
                votes: number;
                tasks?: {
                  taskSet: string;
                  environment: string;
                  /** @default 4 */
                  k: number;
                  /** @default 4 */
                  maxSteps: number;
                };
                /**
                 * @default {
                 *       "maxReplyTokens": 20000,
                 *       "maxSeconds": 600
                 *     }
                 */
                budget: {
                  /** @default 20000 */
                  maxReplyTokens: number;
                  /** @default 600 */
                  maxSeconds: number;
                };
                /**
                 * @default {
                 *       "kappaThreshold": 0.6,
                 *       "minLabeled": 30
                 *     }
                 */
                agreement: {
                  /** @default 0.6 */
                  kappaThreshold: number;
                  /** @default 30 */
                  minLabeled: number;
                };
              };
              customLossPath?: string;
              /**
               * @default shared
               * @enum {string}
               */
              personalization: "shared" | "per-user";
              /**
               * @default {
               *       "rank": 8,
               *       "alpha": 16,
               *       "targets": "attention+mlp",
               *       "advantages": "positive",
               *       "lr": 1,
               *       "gradClip": 0.4,
               *       "hindsightSamples": 2,
               *       "hindsightWeight": 3,
               *       "hindsightMinLogprob": -0.15,
               *       "rememberedHint": true,
               *       "baseKlCoef": 0.03,
               *       "baseKlScope": "samples",
               *       "hindsightRelevance": false,
               *       "hindsightTarget": "teacher",
               *       "hindsightFocus": "uniform",
               *       "hindsightTemperature": 0.7,
               *       "stylePrompts": 32,
               *       "newUsers": "base",
               *       "minSamples": 16,
               *       "gateTolerance": 0.05,
               *       "heldOutFraction": 0.25,
               *       "maxSamplesPerVersion": 64,
               *       "idleAfterS": 0,
               *       "windowUtc": null
               *     }
               */
              perUser: {
                /** @default 8 */
                rank: number;
                /** @default 16 */
                alpha: number;
                /**
                 * @default attention+mlp
                 * @enum {string}
                 */
                targets: "attention" | "attention+mlp";
                /**
                 * @default positive
                 * @enum {string}
                 */
                advantages: "raw" | "centered" | "positive";
                /** @default 1 */
                lr: number;
                /** @default 0.4 */
                gradClip: number;
                /** @default 2 */
                hindsightSamples: number;
                /** @default 3 */
                hindsightWeight: number;
                /** @default -0.15 */
                hindsightMinLogprob: number;
                hindsightMinGain?: number;
                /** @default true */
                rememberedHint: boolean;
                /** @default 0.03 */
                baseKlCoef: number;
                /**
                 * @default samples
                 * @enum {string}
                 */
                baseKlScope: "samples" | "all";
                /** @default false */
                hindsightRelevance: boolean;
                /**
                 * @default teacher
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default 0.7 */
                hindsightTemperature: number;
                /** @default 32 */
                stylePrompts: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                newUsers: "base" | "shared";
                seed?: number;
                /** @default 16 */
                minSamples: number;
                /** @default 0.05 */
                gateTolerance: number;
                /** @default 0.25 */
                heldOutFraction: number;
                /** @default 64 */
                maxSamplesPerVersion: number;
                /** @default 0 */
                idleAfterS: number;
                /** @default null */
                windowUtc: {
                  from: number;
                  to: number;
                } | null;
              };
            };
            secretsSet: string[];
            createdAt: string;
            updatedAt: string;
            archivedAt: string | null;
            activeRun: {
              id: string;
              number: number | null;
              status: string;
            } | null;
            counts?: {
              runs: number | null;
              sessions: number | null;
              turns: number | null;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "experiments.archive": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @default true */
          archived?: boolean;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            slug: string;
            name: string;
            description: string;
            /** @enum {string} */
            status: "ACTIVE" | "ARCHIVED";
            demo: boolean;
            config: {
              /**
               * @default combine
               * @enum {string}
               */
              method: "grpo" | "opd" | "combine";
              /**
               * @default {
               *       "kind": "embedded",
               *       "checkpoint": "models/base"
               *     }
               */
              policy:
                | {
                    /** @constant */
                    kind: "embedded";
                    /** @default models/base */
                    checkpoint: string;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "openai";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "sglang";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  };
              /**
               * @default {
               *       "backend": {
               *         "kind": "heuristic"
               *       },
               *       "votes": 3,
               *       "temperature": 0.6,
               *       "maxTokens": 4096,
               *       "includeRequest": false,
               *       "evalMode": true,
               *       "hintSelection": "longest",
               *       "chatTemplateKwargs": {}
               *     }
               */
              judge: {
                /**
                 * @default {
                 *       "kind": "heuristic"
                 *     }
                 */
                backend:
                  | {
                      /** @constant */
                      kind: "heuristic";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "openai";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "sglang";
                    }
                  | {
                      /** @constant */
                      kind: "custom";
                      modulePath: string;
                    };
                /** @default 3 */
                votes: number;
                /** @default 0.6 */
                temperature: number;
                /** @default 4096 */
                maxTokens: number;
                /** @default false */
                includeRequest: boolean;
                /** @default true */
                evalMode: boolean;
                /**
                 * @default longest
                 * @enum {string}
                 */
                hintSelection: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
                hintM?: number;
                chatTemplate?: string;
                /** @default {} */
                chatTemplateKwargs: {
                  [key: string]: string | number | boolean | null;
                };
              };
              /**
               * @default {
               *       "backend": "embedded",
               *       "gpu": {
               *         "nodes": 1,
               *         "gpusPerNode": 8,
               *         "actorGpus": 4,
               *         "rolloutGpus": 2,
               *         "prmGpus": 2,
               *         "rolloutGpusPerEngine": 2,
               *         "prmGpusPerEngine": 2,
               *         "prmTeacherGpus": 0,
               *         "colocate": false
               *       }
               *     }
               */
              trainer: {
                /**
                 * @default embedded
                 * @enum {string}
                 */
                backend: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
                /** @enum {string} */
                finetune?: "lora" | "full" | "auto";
                /**
                 * @default {
                 *       "nodes": 1,
                 *       "gpusPerNode": 8,
                 *       "actorGpus": 4,
                 *       "rolloutGpus": 2,
                 *       "prmGpus": 2,
                 *       "rolloutGpusPerEngine": 2,
                 *       "prmGpusPerEngine": 2,
                 *       "prmTeacherGpus": 0,
                 *       "colocate": false
                 *     }
                 */
                gpu: {
                  /** @default 1 */
                  nodes: number;
                  /** @default 8 */
                  gpusPerNode: number;
                  /** @default 4 */
                  actorGpus: number;
                  /** @default 2 */
                  rolloutGpus: number;
                  /** @default 2 */
                  prmGpus: number;
                  /** @default 2 */
                  rolloutGpusPerEngine: number;
                  /** @default 2 */
                  prmGpusPerEngine: number;
                  /** @default 0 */
                  prmTeacherGpus: number;
                  /** @default false */
                  colocate: boolean;
                };
                /** Format: uri */
                rayAddress?: string;
              };
              /**
               * @default {
               *       "lr": 0.00001,
               *       "epsClip": 0.2,
               *       "epsClipHigh": 0.28,
               *       "klCoef": 0,
               *       "entropyCoef": 0,
               *       "batchSize": 16,
               *       "wOpd": 1,
               *       "wRl": 1,
               *       "maxStaleness": 4,
               *       "stalePolicy": "drop",
               *       "keepCheckpoints": 5,
               *       "gradClip": 1,
               *       "opdEstimator": "sampled",
               *       "topK": 50,
               *       "teacherSource": "base",
               *       "advClamp": 0,
               *       "topkDiffClip": 1,
               *       "normalizeAdvantages": false,
               *       "advantageGroups": "batch",
               *       "ppoEpochs": 1,
               *       "baseKlCoef": 0,
               *       "opdExtrapolation": 1,
               *       "hindsightSamples": 0,
               *       "hindsightWeight": 0.5,
               *       "hindsightTarget": "sampled",
               *       "hindsightFocus": "uniform",
               *       "hindsightMinLogprob": -0.15,
               *       "hindsightSampleTemperature": 1,
               *       "stylePrompts": 0,
               *       "rememberedStyleHints": false,
               *       "hintMemory": false,
               *       "conversationHints": false,
               *       "userStyleHints": false,
               *       "dualClip": 0
               *     }
               */
              hyper: {
                /** @default 0.00001 */
                lr: number;
                /** @default 0.2 */
                epsClip: number;
                /** @default 0.28 */
                epsClipHigh: number;
                /** @default 0 */
                klCoef: number;
                /** @default 0 */
                entropyCoef: number;
                /** @default 16 */
                batchSize: number;
                /** @default 1 */
                wOpd: number;
                /** @default 1 */
                wRl: number;
                /** @default 4 */
                maxStaleness: number;
                /**
                 * @default drop
                 * @enum {string}
                 */
                stalePolicy: "drop" | "importance-weight";
                /** @default 5 */
                keepCheckpoints: number;
                /** @default 1 */
                gradClip: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                opdEstimator: "sampled" | "topk" | "full";
                /** @default 50 */
                topK: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                teacherSource: "base" | "current";
                /** @default 0 */
                advClamp: number;
                /** @default 1 */
                topkDiffClip: number;
                /** @default false */
                normalizeAdvantages: boolean;
                /**
                 * @default batch
                 * @enum {string}
                 */
                advantageGroups: "batch" | "context";
                /** @default 1 */
                ppoEpochs: number;
                /** @default 0 */
                baseKlCoef: number;
                /** @default 1 */
                opdExtrapolation: number;
                /** @default 0 */
                hindsightSamples: number;
                /** @default 0.5 */
                hindsightWeight: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default -0.15 */
                hindsightMinLogprob: number;
                /** @default 1 */
                hindsightSampleTemperature: number;
                hindsightMinGain?: number;
                /** @default 0 */
                stylePrompts: number;
                /** @default false */
                rememberedStyleHints: boolean;
                /** @default false */
                hintMemory: boolean;
                /** @default false */
                conversationHints: boolean;
                /** @default false */
                userStyleHints: boolean;
                /** @default 0 */
                dualClip: number;
              };
              /**
               * @default {
               *       "enabled": false,
               *       "rank": 16,
               *       "alpha": 32
               *     }
               */
              lora: {
                /** @default false */
                enabled: boolean;
                /** @default 16 */
                rank: number;
                /** @default 32 */
                alpha: number;
              };
              /**
               * @default {
               *       "defaultTurnType": "main",
               *       "sidePatterns": [],
               *       "contextPatterns": [],
               *       "maxTokens": 256,
               *       "promotion": "always",
               *       "gate": {
               *         "tolerance": 0.05,
               *         "confirm": false
               *       },
               *       "autoRollback": {
               *         "enabled": false,
               *         "margin": 0.3,
               *         "minTurns": 20
               *       }
               *     }
               */
              serving: {
                /**
                 * @default main
                 * @enum {string}
                 */
                defaultTurnType: "main" | "side";
                /** @default [] */
                sidePatterns: string[];
                /** @default [] */
                contextPatterns: string[];
                temperature?: number;
                /** @default 256 */
                maxTokens: number;
                /**
                 * @default always
                 * @enum {string}
                 */
                promotion: "always" | "gated";
                /**
                 * @default {
                 *       "tolerance": 0.05,
                 *       "confirm": false
                 *     }
                 */
                gate: {
                  /** @default 0.05 */
                  tolerance: number;
                  floor?: number;
                  set?: string;
                  /** @default false */
                  confirm: boolean;
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "margin": 0.3,
                 *       "minTurns": 20
                 *     }
                 */
                autoRollback: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 0.3 */
                  margin: number;
                  /** @default 20 */
                  minTurns: number;
                };
              };
              /**
               * @default {
               *       "enabled": false,
               *       "every": 1,
               *       "grader": "persona",
               *       "k": 2,
               *       "temperature": 0.7,
               *       "seed": 1,
               *       "maxTokens": 256,
               *       "votes": 3,
               *       "budget": {
               *         "maxReplyTokens": 20000,
               *         "maxSeconds": 600
               *       },
               *       "agreement": {
               *         "kappaThreshold": 0.6,
               *         "minLabeled": 30
               *       }
               *     }
               */
              evaluation: {
                /** @default false */
                enabled: boolean;
                /** @default 1 */
                every: number;
                set?: string;
                /**
                 * @default persona
                 * @enum {string}
                 */
                grader: "persona" | "judge" | "custom";
                graderPath?: string;
                /** @default 2 */
                k: number;
                /** @default 0.7 */
                temperature: number;
                /** @default 1 */
                seed: number;
                /** @default 256 */
                maxTokens: number;
                /** @default 3 */
                votes: number;
                tasks?: {
                  taskSet: string;
                  environment: string;
                  /** @default 4 */
                  k: number;
                  /** @default 4 */
                  maxSteps: number;
                };
                /**
                 * @default {
                 *       "maxReplyTokens": 20000,
                 *       "maxSeconds": 600
                 *     }
                 */
                budget: {
                  /** @default 20000 */
                  maxReplyTokens: number;
                  /** @default 600 */
                  maxSeconds: number;
                };
                /**
                 * @default {
                 *       "kappaThreshold": 0.6,
                 *       "minLabeled": 30
                 *     }
                 */
                agreement: {
                  /** @default 0.6 */
                  kappaThreshold: number;
                  /** @default 30 */
                  minLabeled: number;
                };
              };
              customLossPath?: string;
              /**
               * @default shared
               * @enum {string}
               */
              personalization: "shared" | "per-user";
              /**
               * @default {
               *       "rank": 8,
               *       "alpha": 16,
               *       "targets": "attention+mlp",
               *       "advantages": "positive",
               *       "lr": 1,
               *       "gradClip": 0.4,
               *       "hindsightSamples": 2,
               *       "hindsightWeight": 3,
               *       "hindsightMinLogprob": -0.15,
               *       "rememberedHint": true,
               *       "baseKlCoef": 0.03,
               *       "baseKlScope": "samples",
               *       "hindsightRelevance": false,
               *       "hindsightTarget": "teacher",
               *       "hindsightFocus": "uniform",
               *       "hindsightTemperature": 0.7,
               *       "stylePrompts": 32,
               *       "newUsers": "base",
               *       "minSamples": 16,
               *       "gateTolerance": 0.05,
               *       "heldOutFraction": 0.25,
               *       "maxSamplesPerVersion": 64,
               *       "idleAfterS": 0,
               *       "windowUtc": null
               *     }
               */
              perUser: {
                /** @default 8 */
                rank: number;
                /** @default 16 */
                alpha: number;
                /**
                 * @default attention+mlp
                 * @enum {string}
                 */
                targets: "attention" | "attention+mlp";
                /**
                 * @default positive
                 * @enum {string}
                 */
                advantages: "raw" | "centered" | "positive";
                /** @default 1 */
                lr: number;
                /** @default 0.4 */
                gradClip: number;
                /** @default 2 */
                hindsightSamples: number;
                /** @default 3 */
                hindsightWeight: number;
                /** @default -0.15 */
                hindsightMinLogprob: number;
                hindsightMinGain?: number;
                /** @default true */
                rememberedHint: boolean;
                /** @default 0.03 */
                baseKlCoef: number;
                /**
                 * @default samples
                 * @enum {string}
                 */
                baseKlScope: "samples" | "all";
                /** @default false */
                hindsightRelevance: boolean;
                /**
                 * @default teacher
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default 0.7 */
                hindsightTemperature: number;
                /** @default 32 */
                stylePrompts: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                newUsers: "base" | "shared";
                seed?: number;
                /** @default 16 */
                minSamples: number;
                /** @default 0.05 */
                gateTolerance: number;
                /** @default 0.25 */
                heldOutFraction: number;
                /** @default 64 */
                maxSamplesPerVersion: number;
                /** @default 0 */
                idleAfterS: number;
                /** @default null */
                windowUtc: {
                  from: number;
                  to: number;
                } | null;
              };
            };
            secretsSet: string[];
            createdAt: string;
            updatedAt: string;
            archivedAt: string | null;
            activeRun: {
              id: string;
              number: number | null;
              status: string;
            } | null;
            counts?: {
              runs: number | null;
              sessions: number | null;
              turns: number | null;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "runs.get": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            number: number | null;
            /** @enum {string} */
            status: "PENDING" | "RUNNING" | "PAUSED" | "FINISHED" | "FAILED" | "CRASHED" | "KILLED";
            trainerBackend: string;
            externalJobId: string | null;
            statusMessage: string | null;
            config: {
              /**
               * @default combine
               * @enum {string}
               */
              method: "grpo" | "opd" | "combine";
              /**
               * @default {
               *       "kind": "embedded",
               *       "checkpoint": "models/base"
               *     }
               */
              policy:
                | {
                    /** @constant */
                    kind: "embedded";
                    /** @default models/base */
                    checkpoint: string;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "openai";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "sglang";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  };
              /**
               * @default {
               *       "backend": {
               *         "kind": "heuristic"
               *       },
               *       "votes": 3,
               *       "temperature": 0.6,
               *       "maxTokens": 4096,
               *       "includeRequest": false,
               *       "evalMode": true,
               *       "hintSelection": "longest",
               *       "chatTemplateKwargs": {}
               *     }
               */
              judge: {
                /**
                 * @default {
                 *       "kind": "heuristic"
                 *     }
                 */
                backend:
                  | {
                      /** @constant */
                      kind: "heuristic";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "openai";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "sglang";
                    }
                  | {
                      /** @constant */
                      kind: "custom";
                      modulePath: string;
                    };
                /** @default 3 */
                votes: number;
                /** @default 0.6 */
                temperature: number;
                /** @default 4096 */
                maxTokens: number;
                /** @default false */
                includeRequest: boolean;
                /** @default true */
                evalMode: boolean;
                /**
                 * @default longest
                 * @enum {string}
                 */
                hintSelection: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
                hintM?: number;
                chatTemplate?: string;
                /** @default {} */
                chatTemplateKwargs: {
                  [key: string]: string | number | boolean | null;
                };
              };
              /**
               * @default {
               *       "backend": "embedded",
               *       "gpu": {
               *         "nodes": 1,
               *         "gpusPerNode": 8,
               *         "actorGpus": 4,
               *         "rolloutGpus": 2,
               *         "prmGpus": 2,
               *         "rolloutGpusPerEngine": 2,
               *         "prmGpusPerEngine": 2,
               *         "prmTeacherGpus": 0,
               *         "colocate": false
               *       }
               *     }
               */
              trainer: {
                /**
                 * @default embedded
                 * @enum {string}
                 */
                backend: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
                /** @enum {string} */
                finetune?: "lora" | "full" | "auto";
                /**
                 * @default {
                 *       "nodes": 1,
                 *       "gpusPerNode": 8,
                 *       "actorGpus": 4,
                 *       "rolloutGpus": 2,
                 *       "prmGpus": 2,
                 *       "rolloutGpusPerEngine": 2,
                 *       "prmGpusPerEngine": 2,
                 *       "prmTeacherGpus": 0,
                 *       "colocate": false
                 *     }
                 */
                gpu: {
                  /** @default 1 */
                  nodes: number;
                  /** @default 8 */
                  gpusPerNode: number;
                  /** @default 4 */
                  actorGpus: number;
                  /** @default 2 */
                  rolloutGpus: number;
                  /** @default 2 */
                  prmGpus: number;
                  /** @default 2 */
                  rolloutGpusPerEngine: number;
                  /** @default 2 */
                  prmGpusPerEngine: number;
                  /** @default 0 */
                  prmTeacherGpus: number;
                  /** @default false */
                  colocate: boolean;
                };
                /** Format: uri */
                rayAddress?: string;
              };
              /**
               * @default {
               *       "lr": 0.00001,
               *       "epsClip": 0.2,
               *       "epsClipHigh": 0.28,
               *       "klCoef": 0,
               *       "entropyCoef": 0,
               *       "batchSize": 16,
               *       "wOpd": 1,
               *       "wRl": 1,
               *       "maxStaleness": 4,
               *       "stalePolicy": "drop",
               *       "keepCheckpoints": 5,
               *       "gradClip": 1,
               *       "opdEstimator": "sampled",
               *       "topK": 50,
               *       "teacherSource": "base",
               *       "advClamp": 0,
               *       "topkDiffClip": 1,
               *       "normalizeAdvantages": false,
               *       "advantageGroups": "batch",
               *       "ppoEpochs": 1,
               *       "baseKlCoef": 0,
               *       "opdExtrapolation": 1,
               *       "hindsightSamples": 0,
               *       "hindsightWeight": 0.5,
               *       "hindsightTarget": "sampled",
               *       "hindsightFocus": "uniform",
               *       "hindsightMinLogprob": -0.15,
               *       "hindsightSampleTemperature": 1,
               *       "stylePrompts": 0,
               *       "rememberedStyleHints": false,
               *       "hintMemory": false,
               *       "conversationHints": false,
               *       "userStyleHints": false,
               *       "dualClip": 0
               *     }
               */
              hyper: {
                /** @default 0.00001 */
                lr: number;
                /** @default 0.2 */
                epsClip: number;
                /** @default 0.28 */
                epsClipHigh: number;
                /** @default 0 */
                klCoef: number;
                /** @default 0 */
                entropyCoef: number;
                /** @default 16 */
                batchSize: number;
                /** @default 1 */
                wOpd: number;
                /** @default 1 */
                wRl: number;
                /** @default 4 */
                maxStaleness: number;
                /**
                 * @default drop
                 * @enum {string}
                 */
                stalePolicy: "drop" | "importance-weight";
                /** @default 5 */
                keepCheckpoints: number;
                /** @default 1 */
                gradClip: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                opdEstimator: "sampled" | "topk" | "full";
                /** @default 50 */
                topK: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                teacherSource: "base" | "current";
                /** @default 0 */
                advClamp: number;
                /** @default 1 */
                topkDiffClip: number;
                /** @default false */
                normalizeAdvantages: boolean;
                /**
                 * @default batch
                 * @enum {string}
                 */
                advantageGroups: "batch" | "context";
                /** @default 1 */
                ppoEpochs: number;
                /** @default 0 */
                baseKlCoef: number;
                /** @default 1 */
                opdExtrapolation: number;
                /** @default 0 */
                hindsightSamples: number;
                /** @default 0.5 */
                hindsightWeight: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default -0.15 */
                hindsightMinLogprob: number;
                /** @default 1 */
                hindsightSampleTemperature: number;
                hindsightMinGain?: number;
                /** @default 0 */
                stylePrompts: number;
                /** @default false */
                rememberedStyleHints: boolean;
                /** @default false */
                hintMemory: boolean;
                /** @default false */
                conversationHints: boolean;
                /** @default false */
                userStyleHints: boolean;
                /** @default 0 */
                dualClip: number;
              };
              /**
               * @default {
               *       "enabled": false,
               *       "rank": 16,
               *       "alpha": 32
               *     }
               */
              lora: {
                /** @default false */
                enabled: boolean;
                /** @default 16 */
                rank: number;
                /** @default 32 */
                alpha: number;
              };
              /**
               * @default {
               *       "defaultTurnType": "main",
               *       "sidePatterns": [],
               *       "contextPatterns": [],
               *       "maxTokens": 256,
               *       "promotion": "always",
               *       "gate": {
               *         "tolerance": 0.05,
               *         "confirm": false
               *       },
               *       "autoRollback": {
               *         "enabled": false,
               *         "margin": 0.3,
               *         "minTurns": 20
               *       }
               *     }
               */
              serving: {
                /**
                 * @default main
                 * @enum {string}
                 */
                defaultTurnType: "main" | "side";
                /** @default [] */
                sidePatterns: string[];
                /** @default [] */
                contextPatterns: string[];
                temperature?: number;
                /** @default 256 */
                maxTokens: number;
                /**
                 * @default always
                 * @enum {string}
                 */
                promotion: "always" | "gated";
                /**
                 * @default {
                 *       "tolerance": 0.05,
                 *       "confirm": false
                 *     }
                 */
                gate: {
                  /** @default 0.05 */
                  tolerance: number;
                  floor?: number;
                  set?: string;
                  /** @default false */
                  confirm: boolean;
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "margin": 0.3,
                 *       "minTurns": 20
                 *     }
                 */
                autoRollback: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 0.3 */
                  margin: number;
                  /** @default 20 */
                  minTurns: number;
                };
              };
              /**
               * @default {
               *       "enabled": false,
               *       "every": 1,
               *       "grader": "persona",
               *       "k": 2,
               *       "temperature": 0.7,
               *       "seed": 1,
               *       "maxTokens": 256,
               *       "votes": 3,
               *       "budget": {
               *         "maxReplyTokens": 20000,
               *         "maxSeconds": 600
               *       },
               *       "agreement": {
               *         "kappaThreshold": 0.6,
               *         "minLabeled": 30
               *       }
               *     }
               */
              evaluation: {
                /** @default false */
                enabled: boolean;
                /** @default 1 */
                every: number;
                set?: string;
                /**
                 * @default persona
                 * @enum {string}
                 */
                grader: "persona" | "judge" | "custom";
                graderPath?: string;
                /** @default 2 */
                k: number;
                /** @default 0.7 */
                temperature: number;
                /** @default 1 */
                seed: number;
                /** @default 256 */
                maxTokens: number;
                /** @default 3 */
                votes: number;
                tasks?: {
                  taskSet: string;
                  environment: string;
                  /** @default 4 */
                  k: number;
                  /** @default 4 */
                  maxSteps: number;
                };
                /**
                 * @default {
                 *       "maxReplyTokens": 20000,
                 *       "maxSeconds": 600
                 *     }
                 */
                budget: {
                  /** @default 20000 */
                  maxReplyTokens: number;
                  /** @default 600 */
                  maxSeconds: number;
                };
                /**
                 * @default {
                 *       "kappaThreshold": 0.6,
                 *       "minLabeled": 30
                 *     }
                 */
                agreement: {
                  /** @default 0.6 */
                  kappaThreshold: number;
                  /** @default 30 */
                  minLabeled: number;
                };
              };
              customLossPath?: string;
              /**
               * @default shared
               * @enum {string}
               */
              personalization: "shared" | "per-user";
              /**
               * @default {
               *       "rank": 8,
               *       "alpha": 16,
               *       "targets": "attention+mlp",
               *       "advantages": "positive",
               *       "lr": 1,
               *       "gradClip": 0.4,
               *       "hindsightSamples": 2,
               *       "hindsightWeight": 3,
               *       "hindsightMinLogprob": -0.15,
               *       "rememberedHint": true,
               *       "baseKlCoef": 0.03,
               *       "baseKlScope": "samples",
               *       "hindsightRelevance": false,
               *       "hindsightTarget": "teacher",
               *       "hindsightFocus": "uniform",
               *       "hindsightTemperature": 0.7,
               *       "stylePrompts": 32,
               *       "newUsers": "base",
               *       "minSamples": 16,
               *       "gateTolerance": 0.05,
               *       "heldOutFraction": 0.25,
               *       "maxSamplesPerVersion": 64,
               *       "idleAfterS": 0,
               *       "windowUtc": null
               *     }
               */
              perUser: {
                /** @default 8 */
                rank: number;
                /** @default 16 */
                alpha: number;
                /**
                 * @default attention+mlp
                 * @enum {string}
                 */
                targets: "attention" | "attention+mlp";
                /**
                 * @default positive
                 * @enum {string}
                 */
                advantages: "raw" | "centered" | "positive";
                /** @default 1 */
                lr: number;
                /** @default 0.4 */
                gradClip: number;
                /** @default 2 */
                hindsightSamples: number;
                /** @default 3 */
                hindsightWeight: number;
                /** @default -0.15 */
                hindsightMinLogprob: number;
                hindsightMinGain?: number;
                /** @default true */
                rememberedHint: boolean;
                /** @default 0.03 */
                baseKlCoef: number;
                /**
                 * @default samples
                 * @enum {string}
                 */
                baseKlScope: "samples" | "all";
                /** @default false */
                hindsightRelevance: boolean;
                /**
                 * @default teacher
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default 0.7 */
                hindsightTemperature: number;
                /** @default 32 */
                stylePrompts: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                newUsers: "base" | "shared";
                seed?: number;
                /** @default 16 */
                minSamples: number;
                /** @default 0.05 */
                gateTolerance: number;
                /** @default 0.25 */
                heldOutFraction: number;
                /** @default 64 */
                maxSamplesPerVersion: number;
                /** @default 0 */
                idleAfterS: number;
                /** @default null */
                windowUtc: {
                  from: number;
                  to: number;
                } | null;
              };
            };
            createdAt: string;
            startedAt: string | null;
            endedAt: string | null;
            heartbeatAt: string | null;
            lastStep: number | null;
            rolloutUrl: string | null;
            rolloutUrlPrevious: string | null;
            rolloutUrlChangedAt: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "runs.act": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @enum {string} */
          action: "stop" | "pause" | "resume";
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            number: number | null;
            /** @enum {string} */
            status: "PENDING" | "RUNNING" | "PAUSED" | "FINISHED" | "FAILED" | "CRASHED" | "KILLED";
            trainerBackend: string;
            externalJobId: string | null;
            statusMessage: string | null;
            config: {
              /**
               * @default combine
               * @enum {string}
               */
              method: "grpo" | "opd" | "combine";
              /**
               * @default {
               *       "kind": "embedded",
               *       "checkpoint": "models/base"
               *     }
               */
              policy:
                | {
                    /** @constant */
                    kind: "embedded";
                    /** @default models/base */
                    checkpoint: string;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "openai";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  }
                | {
                    /** Format: uri */
                    baseUrl: string;
                    model: string;
                    apiKey?: string;
                    /** @constant */
                    kind: "sglang";
                    /** @enum {string} */
                    loraAdapters?: "sglang" | "vllm";
                    loraMaxLoaded?: number;
                  };
              /**
               * @default {
               *       "backend": {
               *         "kind": "heuristic"
               *       },
               *       "votes": 3,
               *       "temperature": 0.6,
               *       "maxTokens": 4096,
               *       "includeRequest": false,
               *       "evalMode": true,
               *       "hintSelection": "longest",
               *       "chatTemplateKwargs": {}
               *     }
               */
              judge: {
                /**
                 * @default {
                 *       "kind": "heuristic"
                 *     }
                 */
                backend:
                  | {
                      /** @constant */
                      kind: "heuristic";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "openai";
                    }
                  | {
                      /** Format: uri */
                      baseUrl: string;
                      model: string;
                      apiKey?: string;
                      /** @constant */
                      kind: "sglang";
                    }
                  | {
                      /** @constant */
                      kind: "custom";
                      modulePath: string;
                    };
                /** @default 3 */
                votes: number;
                /** @default 0.6 */
                temperature: number;
                /** @default 4096 */
                maxTokens: number;
                /** @default false */
                includeRequest: boolean;
                /** @default true */
                evalMode: boolean;
                /**
                 * @default longest
                 * @enum {string}
                 */
                hintSelection: "longest" | "shortest" | "token_optimal" | "sequence_optimal";
                hintM?: number;
                chatTemplate?: string;
                /** @default {} */
                chatTemplateKwargs: {
                  [key: string]: string | number | boolean | null;
                };
              };
              /**
               * @default {
               *       "backend": "embedded",
               *       "gpu": {
               *         "nodes": 1,
               *         "gpusPerNode": 8,
               *         "actorGpus": 4,
               *         "rolloutGpus": 2,
               *         "prmGpus": 2,
               *         "rolloutGpusPerEngine": 2,
               *         "prmGpusPerEngine": 2,
               *         "prmTeacherGpus": 0,
               *         "colocate": false
               *       }
               *     }
               */
              trainer: {
                /**
                 * @default embedded
                 * @enum {string}
                 */
                backend: "embedded" | "ray-slime" | "local-process" | "tinker" | "hf-local";
                /** @enum {string} */
                finetune?: "lora" | "full" | "auto";
                /**
                 * @default {
                 *       "nodes": 1,
                 *       "gpusPerNode": 8,
                 *       "actorGpus": 4,
                 *       "rolloutGpus": 2,
                 *       "prmGpus": 2,
                 *       "rolloutGpusPerEngine": 2,
                 *       "prmGpusPerEngine": 2,
                 *       "prmTeacherGpus": 0,
                 *       "colocate": false
                 *     }
                 */
                gpu: {
                  /** @default 1 */
                  nodes: number;
                  /** @default 8 */
                  gpusPerNode: number;
                  /** @default 4 */
                  actorGpus: number;
                  /** @default 2 */
                  rolloutGpus: number;
                  /** @default 2 */
                  prmGpus: number;
                  /** @default 2 */
                  rolloutGpusPerEngine: number;
                  /** @default 2 */
                  prmGpusPerEngine: number;
                  /** @default 0 */
                  prmTeacherGpus: number;
                  /** @default false */
                  colocate: boolean;
                };
                /** Format: uri */
                rayAddress?: string;
              };
              /**
               * @default {
               *       "lr": 0.00001,
               *       "epsClip": 0.2,
               *       "epsClipHigh": 0.28,
               *       "klCoef": 0,
               *       "entropyCoef": 0,
               *       "batchSize": 16,
               *       "wOpd": 1,
               *       "wRl": 1,
               *       "maxStaleness": 4,
               *       "stalePolicy": "drop",
               *       "keepCheckpoints": 5,
               *       "gradClip": 1,
               *       "opdEstimator": "sampled",
               *       "topK": 50,
               *       "teacherSource": "base",
               *       "advClamp": 0,
               *       "topkDiffClip": 1,
               *       "normalizeAdvantages": false,
               *       "advantageGroups": "batch",
               *       "ppoEpochs": 1,
               *       "baseKlCoef": 0,
               *       "opdExtrapolation": 1,
               *       "hindsightSamples": 0,
               *       "hindsightWeight": 0.5,
               *       "hindsightTarget": "sampled",
               *       "hindsightFocus": "uniform",
               *       "hindsightMinLogprob": -0.15,
               *       "hindsightSampleTemperature": 1,
               *       "stylePrompts": 0,
               *       "rememberedStyleHints": false,
               *       "hintMemory": false,
               *       "conversationHints": false,
               *       "userStyleHints": false,
               *       "dualClip": 0
               *     }
               */
              hyper: {
                /** @default 0.00001 */
                lr: number;
                /** @default 0.2 */
                epsClip: number;
                /** @default 0.28 */
                epsClipHigh: number;
                /** @default 0 */
                klCoef: number;
                /** @default 0 */
                entropyCoef: number;
                /** @default 16 */
                batchSize: number;
                /** @default 1 */
                wOpd: number;
                /** @default 1 */
                wRl: number;
                /** @default 4 */
                maxStaleness: number;
                /**
                 * @default drop
                 * @enum {string}
                 */
                stalePolicy: "drop" | "importance-weight";
                /** @default 5 */
                keepCheckpoints: number;
                /** @default 1 */
                gradClip: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                opdEstimator: "sampled" | "topk" | "full";
                /** @default 50 */
                topK: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                teacherSource: "base" | "current";
                /** @default 0 */
                advClamp: number;
                /** @default 1 */
                topkDiffClip: number;
                /** @default false */
                normalizeAdvantages: boolean;
                /**
                 * @default batch
                 * @enum {string}
                 */
                advantageGroups: "batch" | "context";
                /** @default 1 */
                ppoEpochs: number;
                /** @default 0 */
                baseKlCoef: number;
                /** @default 1 */
                opdExtrapolation: number;
                /** @default 0 */
                hindsightSamples: number;
                /** @default 0.5 */
                hindsightWeight: number;
                /**
                 * @default sampled
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default -0.15 */
                hindsightMinLogprob: number;
                /** @default 1 */
                hindsightSampleTemperature: number;
                hindsightMinGain?: number;
                /** @default 0 */
                stylePrompts: number;
                /** @default false */
                rememberedStyleHints: boolean;
                /** @default false */
                hintMemory: boolean;
                /** @default false */
                conversationHints: boolean;
                /** @default false */
                userStyleHints: boolean;
                /** @default 0 */
                dualClip: number;
              };
              /**
               * @default {
               *       "enabled": false,
               *       "rank": 16,
               *       "alpha": 32
               *     }
               */
              lora: {
                /** @default false */
                enabled: boolean;
                /** @default 16 */
                rank: number;
                /** @default 32 */
                alpha: number;
              };
              /**
               * @default {
               *       "defaultTurnType": "main",
               *       "sidePatterns": [],
               *       "contextPatterns": [],
               *       "maxTokens": 256,
               *       "promotion": "always",
               *       "gate": {
               *         "tolerance": 0.05,
               *         "confirm": false
               *       },
               *       "autoRollback": {
               *         "enabled": false,
               *         "margin": 0.3,
               *         "minTurns": 20
               *       }
               *     }
               */
              serving: {
                /**
                 * @default main
                 * @enum {string}
                 */
                defaultTurnType: "main" | "side";
                /** @default [] */
                sidePatterns: string[];
                /** @default [] */
                contextPatterns: string[];
                temperature?: number;
                /** @default 256 */
                maxTokens: number;
                /**
                 * @default always
                 * @enum {string}
                 */
                promotion: "always" | "gated";
                /**
                 * @default {
                 *       "tolerance": 0.05,
                 *       "confirm": false
                 *     }
                 */
                gate: {
                  /** @default 0.05 */
                  tolerance: number;
                  floor?: number;
                  set?: string;
                  /** @default false */
                  confirm: boolean;
                };
                /**
                 * @default {
                 *       "enabled": false,
                 *       "margin": 0.3,
                 *       "minTurns": 20
                 *     }
                 */
                autoRollback: {
                  /** @default false */
                  enabled: boolean;
                  /** @default 0.3 */
                  margin: number;
                  /** @default 20 */
                  minTurns: number;
                };
              };
              /**
               * @default {
               *       "enabled": false,
               *       "every": 1,
               *       "grader": "persona",
               *       "k": 2,
               *       "temperature": 0.7,
               *       "seed": 1,
               *       "maxTokens": 256,
               *       "votes": 3,
               *       "budget": {
               *         "maxReplyTokens": 20000,
               *         "maxSeconds": 600
               *       },
               *       "agreement": {
               *         "kappaThreshold": 0.6,
               *         "minLabeled": 30
               *       }
               *     }
               */
              evaluation: {
                /** @default false */
                enabled: boolean;
                /** @default 1 */
                every: number;
                set?: string;
                /**
                 * @default persona
                 * @enum {string}
                 */
                grader: "persona" | "judge" | "custom";
                graderPath?: string;
                /** @default 2 */
                k: number;
                /** @default 0.7 */
                temperature: number;
                /** @default 1 */
                seed: number;
                /** @default 256 */
                maxTokens: number;
                /** @default 3 */
                votes: number;
                tasks?: {
                  taskSet: string;
                  environment: string;
                  /** @default 4 */
                  k: number;
                  /** @default 4 */
                  maxSteps: number;
                };
                /**
                 * @default {
                 *       "maxReplyTokens": 20000,
                 *       "maxSeconds": 600
                 *     }
                 */
                budget: {
                  /** @default 20000 */
                  maxReplyTokens: number;
                  /** @default 600 */
                  maxSeconds: number;
                };
                /**
                 * @default {
                 *       "kappaThreshold": 0.6,
                 *       "minLabeled": 30
                 *     }
                 */
                agreement: {
                  /** @default 0.6 */
                  kappaThreshold: number;
                  /** @default 30 */
                  minLabeled: number;
                };
              };
              customLossPath?: string;
              /**
               * @default shared
               * @enum {string}
               */
              personalization: "shared" | "per-user";
              /**
               * @default {
               *       "rank": 8,
               *       "alpha": 16,
               *       "targets": "attention+mlp",
               *       "advantages": "positive",
               *       "lr": 1,
               *       "gradClip": 0.4,
               *       "hindsightSamples": 2,
               *       "hindsightWeight": 3,
               *       "hindsightMinLogprob": -0.15,
               *       "rememberedHint": true,
               *       "baseKlCoef": 0.03,
               *       "baseKlScope": "samples",
               *       "hindsightRelevance": false,
               *       "hindsightTarget": "teacher",
               *       "hindsightFocus": "uniform",
               *       "hindsightTemperature": 0.7,
               *       "stylePrompts": 32,
               *       "newUsers": "base",
               *       "minSamples": 16,
               *       "gateTolerance": 0.05,
               *       "heldOutFraction": 0.25,
               *       "maxSamplesPerVersion": 64,
               *       "idleAfterS": 0,
               *       "windowUtc": null
               *     }
               */
              perUser: {
                /** @default 8 */
                rank: number;
                /** @default 16 */
                alpha: number;
                /**
                 * @default attention+mlp
                 * @enum {string}
                 */
                targets: "attention" | "attention+mlp";
                /**
                 * @default positive
                 * @enum {string}
                 */
                advantages: "raw" | "centered" | "positive";
                /** @default 1 */
                lr: number;
                /** @default 0.4 */
                gradClip: number;
                /** @default 2 */
                hindsightSamples: number;
                /** @default 3 */
                hindsightWeight: number;
                /** @default -0.15 */
                hindsightMinLogprob: number;
                hindsightMinGain?: number;
                /** @default true */
                rememberedHint: boolean;
                /** @default 0.03 */
                baseKlCoef: number;
                /**
                 * @default samples
                 * @enum {string}
                 */
                baseKlScope: "samples" | "all";
                /** @default false */
                hindsightRelevance: boolean;
                /**
                 * @default teacher
                 * @enum {string}
                 */
                hindsightTarget: "sampled" | "teacher";
                /**
                 * @default uniform
                 * @enum {string}
                 */
                hindsightFocus: "uniform" | "hint";
                /** @default 0.7 */
                hindsightTemperature: number;
                /** @default 32 */
                stylePrompts: number;
                /**
                 * @default base
                 * @enum {string}
                 */
                newUsers: "base" | "shared";
                seed?: number;
                /** @default 16 */
                minSamples: number;
                /** @default 0.05 */
                gateTolerance: number;
                /** @default 0.25 */
                heldOutFraction: number;
                /** @default 64 */
                maxSamplesPerVersion: number;
                /** @default 0 */
                idleAfterS: number;
                /** @default null */
                windowUtc: {
                  from: number;
                  to: number;
                } | null;
              };
            };
            createdAt: string;
            startedAt: string | null;
            endedAt: string | null;
            heartbeatAt: string | null;
            lastStep: number | null;
            rolloutUrl: string | null;
            rolloutUrlPrevious: string | null;
            rolloutUrlChangedAt: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "runOps.launchPreview": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        experimentId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            experimentId: string;
            trainerBackend: string;
            command: string | null;
            error: string | null;
            notes: string[];
            needsUserKey: boolean;
            userKeyConfigured: boolean;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "runOps.logs": {
    parameters: {
      query?: {
        tail?: number;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            runId: string;
            trainerBackend: string;
            /** @enum {string} */
            source: "file" | "ray" | "none";
            text: string;
            note: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "runOps.leases": {
    parameters: {
      query?: {
        limit?: number;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            items: {
              id: string;
              requestKey: string | null;
              size: number | null;
              leasedAt: string;
              expiresAt: string;
              ackedAt: string | null;
              step: number | null;
              /** @enum {string} */
              state: "acknowledged" | "expired" | "active";
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "batches.lease": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          size: number;
          /** @default 1 */
          minSize?: number;
          /** @default 600 */
          leaseSeconds?: number;
          requestKey?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            leaseId: string | null;
            expiresAt: string | null;
            paused: boolean;
            available: number | null;
            policyVersion: number | null;
            endUserId: string | null;
            adapter: {
              served: {
                version: number | null;
                path: string | null;
              } | null;
              latestVersion: number | null;
            } | null;
            samples: {
              sampleId: string;
              turnId: string;
              sessionId: string;
              turnIndex: number | null;
              endUserId: string | null;
              /** @enum {string} */
              kind: "RL" | "OPD" | "BOTH";
              reward: number | null;
              /** @enum {string} */
              labelSource: "REVIEWER" | "USER" | "JUDGE";
              attempt: number | null;
              messages: unknown[];
              tools: unknown[] | null;
              response: {
                content: string | null;
                toolCalls: unknown;
                reasoning: string | null;
                finishReason: string | null;
              };
              responseTokenIds: (number | null)[];
              lossMask: (number | null)[];
              rolloutLogprobs: (number | null)[];
              teacherLogprobs: (number | null)[] | null;
              hint: string | null;
              hintCandidates: string[] | null;
              policyVersion: number | null;
              staleness: number | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "batches.leaseEpisodes": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          groups: number;
          /** @default 1 */
          minGroups?: number;
          /** @default 600 */
          leaseSeconds?: number;
          requestKey?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            leaseId: string | null;
            expiresAt: string | null;
            paused: boolean;
            available: number | null;
            policyVersion: number | null;
            groups: {
              groupKey: string;
              taskId: string;
              taskKey: string;
              failed: number | null;
              episodes: {
                episodeId: string;
                sampleIndex: number | null;
                outcome: number | null;
                estimator: string;
                truncation: string | null;
                steps: {
                  index: number | null;
                  prmScore: number | null;
                  score: number | null;
                  advantage: number | null;
                  sample: {
                    sampleId: string;
                    turnId: string;
                    sessionId: string;
                    turnIndex: number | null;
                    endUserId: string | null;
                    /** @enum {string} */
                    kind: "RL" | "OPD" | "BOTH";
                    reward: number | null;
                    /** @enum {string} */
                    labelSource: "REVIEWER" | "USER" | "JUDGE";
                    attempt: number | null;
                    messages: unknown[];
                    tools: unknown[] | null;
                    response: {
                      content: string | null;
                      toolCalls: unknown;
                      reasoning: string | null;
                      finishReason: string | null;
                    };
                    responseTokenIds: (number | null)[];
                    lossMask: (number | null)[];
                    rolloutLogprobs: (number | null)[];
                    teacherLogprobs: (number | null)[] | null;
                    hint: string | null;
                    hintCandidates: string[] | null;
                    policyVersion: number | null;
                    staleness: number | null;
                  };
                }[];
              }[];
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "batches.report": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @default {} */
          metrics?: {
            [key: string]: number;
          };
          step?: number;
          weightVersion?: number;
          /** Format: uri */
          rolloutUrl?: string;
          /** Format: uri */
          prmUrl?: string;
          /** Format: uri */
          prmTeacherUrl?: string;
          prmModelPath?: string;
          message?: string;
          /** @default [] */
          renewLeaseIds?: string[];
          /** @default 600 */
          leaseSeconds?: number;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            runStatus: string;
            stop: boolean;
            paused: boolean;
            renewed: {
              leaseId: string;
              expiresAt: string;
              held: number | null;
            }[];
            policyVersion: number | null;
            lastStep: number | null;
            resume: {
              policyVersion: number | null;
              step: number | null;
              checkpointPath: string;
            } | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "users.update": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name?: string;
          /** @enum {string} */
          role?: "ADMIN" | "REVIEWER" | "VIEWER";
          disabled?: boolean;
          password?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            email: string;
            name: string | null;
            /** @enum {string} */
            role: "ADMIN" | "REVIEWER" | "VIEWER";
            disabled: boolean;
            createdAt: string;
            lastLoginAt: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "apiKeys.revoke": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            name: string;
            prefix: string;
            scopes: string[];
            experimentId: string | null;
            endUserId: string | null;
            createdAt: string;
            lastUsedAt: string | null;
            expiresAt: string | null;
            revokedAt: string | null;
            createdById: string | null;
            createdByEmail: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "policyVersions.get": {
    parameters: {
      query: {
        experimentId: string;
      };
      header?: never;
      path: {
        version: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            runId: string | null;
            version: number | null;
            parentVersion: number | null;
            /** @enum {string} */
            status: "ACTIVE" | "CANDIDATE" | "RETIRED" | "ROLLED_BACK";
            step: number | null;
            checkpointPath: string | null;
            checkpointSha: string | null;
            bytes: number | null;
            available: boolean;
            createdAt: string;
            promotedAt: string | null;
            gateReason: string | null;
            trainingStep: {
              id: string;
              step: number | null;
              durationMs: number | null;
              metrics: unknown;
              createdAt: string;
            } | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "sessions.get": {
    parameters: {
      query?: {
        experimentId?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            externalId: string;
            idSource: string;
            persona: string | null;
            simulated: boolean;
            done: boolean;
            doneAt: string | null;
            turnCount: number | null;
            /** Format: date-time */
            lastTurnAt: string;
            /** Format: date-time */
            createdAt: string;
            experiment: {
              name: string;
              slug: string;
            };
            turns: {
              id: string;
              sessionId: string;
              experimentId: string;
              runId: string | null;
              index: number | null;
              /** @enum {string} */
              turnType: "MAIN" | "SIDE";
              typeSource: string;
              /** @enum {string} */
              status: "OK" | "FAILED";
              simulated: boolean;
              content: string | null;
              finishReason: string | null;
              policyVersion: number | null;
              latencyMs: number | null;
              ttftMs: number | null;
              promptTokens: number | null;
              completionTokens: number | null;
              nextStateRole: string | null;
              nextStateAt: string | null;
              /** Format: date-time */
              createdAt: string;
              error: string | null;
              endUserId: string | null;
              agentId: string | null;
              adapterId: string | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "sessions.conversation": {
    parameters: {
      query?: {
        cursor?: number;
        limit?: number;
        lane?: "MAIN" | "SIDE" | "ALL";
      };
      header?: never;
      path: {
        sessionId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            system: unknown;
            tools: unknown;
            turns: {
              id: string;
              sessionId: string;
              experimentId: string;
              runId: string | null;
              index: number | null;
              /** @enum {string} */
              turnType: "MAIN" | "SIDE";
              typeSource: string;
              /** @enum {string} */
              status: "OK" | "FAILED";
              simulated: boolean;
              content: string | null;
              finishReason: string | null;
              policyVersion: number | null;
              latencyMs: number | null;
              ttftMs: number | null;
              promptTokens: number | null;
              completionTokens: number | null;
              nextStateRole: string | null;
              nextStateAt: string | null;
              /** Format: date-time */
              createdAt: string;
              error: string | null;
              endUserId: string | null;
              agentId: string | null;
              adapterId: string | null;
              messagesDelta: unknown;
              messagesOffset: number | null;
              toolCalls: unknown;
              reasoning: string | null;
              nextState: unknown;
              upstreamModel: string | null;
              systemHash: string | null;
              toolsHash: string | null;
              responseTokens: number | null;
              staleness: number | null;
              currentPolicyVersion: number | null;
              judgment: {
                id: string;
                turnId: string;
                judgeKind: string;
                judgeVersion: string;
                promptVersion: string;
                model: string;
                settings: unknown;
                score: number | null;
                evalScore: number | null;
                hint: string | null;
                hintAccepted: boolean;
                teacherLogprobs: (number | null)[];
                dispatch: string | null;
                excluded: boolean;
                excludeReason: string | null;
                latencyMs: number | null;
                /** Format: date-time */
                createdAt: string;
                votes: {
                  id: string;
                  judgmentId: string;
                  kind: string;
                  index: number | null;
                  value: number | null;
                  hint: string | null;
                  raw: string;
                  error: string | null;
                  latencyMs: number | null;
                }[];
                agreement: {
                  valid: number | null;
                  agree: number | null;
                };
              } | null;
              olderJudgments: {
                id: string;
                turnId: string;
                judgeKind: string;
                judgeVersion: string;
                promptVersion: string;
                model: string;
                settings: unknown;
                score: number | null;
                evalScore: number | null;
                hint: string | null;
                hintAccepted: boolean;
                teacherLogprobs: (number | null)[];
                dispatch: string | null;
                excluded: boolean;
                excludeReason: string | null;
                latencyMs: number | null;
                /** Format: date-time */
                createdAt: string;
                votes: {
                  id: string;
                  judgmentId: string;
                  kind: string;
                  index: number | null;
                  value: number | null;
                  hint: string | null;
                  raw: string;
                  error: string | null;
                  latencyMs: number | null;
                }[];
              }[];
              labels: {
                id: string;
                turnId: string;
                /** @enum {string} */
                source: "REVIEWER" | "USER" | "JUDGE";
                value: number | null;
                hint: string | null;
                exclude: boolean | null;
                comment: string | null;
                userId: string | null;
                apiKeyId: string | null;
                /** Format: date-time */
                createdAt: string;
                user: {
                  email: string;
                } | null;
                apiKey: {
                  prefix: string;
                } | null;
              }[];
              samples: {
                id: string;
                runId: string;
                turnId: string;
                stepId: string | null;
                leaseId: string | null;
                leaseCount: number | null;
                /** @enum {string} */
                kind: "RL" | "OPD" | "BOTH";
                /** @enum {string} */
                labelSource: "REVIEWER" | "USER" | "JUDGE";
                reward: number | null;
                staleness: number | null;
                excluded: boolean;
                excludeReason: string | null;
                /** Format: date-time */
                createdAt: string;
                step: {
                  step: number | null;
                  policyVersion: number | null;
                  /** Format: date-time */
                  createdAt: string;
                } | null;
              }[];
              training: {
                turnId: string;
                experimentId: string;
                value: number | null;
                source: ("REVIEWER" | "USER" | "JUDGE") | null;
                labelId: string | null;
                judgmentId: string | null;
                hint: string | null;
                hintFromTurnId: string | null;
                needsTeacherRescore: boolean;
                teacherLogprobs: (number | null)[] | null;
                kind: ("RL" | "OPD" | "BOTH") | null;
                reward: number | null;
                groupNormalized?: boolean;
                excluded: boolean;
                excludeReason: string | null;
              } | null;
              opd: {
                cells: {
                  text: string;
                  gap: number | null;
                  start: number | null;
                  tokens: number | null;
                }[];
                tokenCount: number | null;
                meanGap: number | null;
                minGap: number | null;
                maxGap: number | null;
                decoded: boolean;
                warning: string | null;
              } | null;
            }[];
            nextCursor: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "turns.get": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            sessionId: string;
            experimentId: string;
            runId: string | null;
            index: number | null;
            /** @enum {string} */
            turnType: "MAIN" | "SIDE";
            typeSource: string;
            /** @enum {string} */
            status: "OK" | "FAILED";
            simulated: boolean;
            content: string | null;
            finishReason: string | null;
            policyVersion: number | null;
            latencyMs: number | null;
            ttftMs: number | null;
            promptTokens: number | null;
            completionTokens: number | null;
            nextStateRole: string | null;
            nextStateAt: string | null;
            /** Format: date-time */
            createdAt: string;
            error: string | null;
            endUserId: string | null;
            agentId: string | null;
            adapterId: string | null;
            messagesDelta: unknown;
            messagesOffset: number | null;
            toolCalls: unknown;
            reasoning: string | null;
            nextState: unknown;
            upstreamModel: string | null;
            systemHash: string | null;
            toolsHash: string | null;
            responseTokens: number | null;
            staleness: number | null;
            currentPolicyVersion: number | null;
            judgment: {
              id: string;
              turnId: string;
              judgeKind: string;
              judgeVersion: string;
              promptVersion: string;
              model: string;
              settings: unknown;
              score: number | null;
              evalScore: number | null;
              hint: string | null;
              hintAccepted: boolean;
              teacherLogprobs: (number | null)[];
              dispatch: string | null;
              excluded: boolean;
              excludeReason: string | null;
              latencyMs: number | null;
              /** Format: date-time */
              createdAt: string;
              votes: {
                id: string;
                judgmentId: string;
                kind: string;
                index: number | null;
                value: number | null;
                hint: string | null;
                raw: string;
                error: string | null;
                latencyMs: number | null;
              }[];
              agreement: {
                valid: number | null;
                agree: number | null;
              };
            } | null;
            olderJudgments: {
              id: string;
              turnId: string;
              judgeKind: string;
              judgeVersion: string;
              promptVersion: string;
              model: string;
              settings: unknown;
              score: number | null;
              evalScore: number | null;
              hint: string | null;
              hintAccepted: boolean;
              teacherLogprobs: (number | null)[];
              dispatch: string | null;
              excluded: boolean;
              excludeReason: string | null;
              latencyMs: number | null;
              /** Format: date-time */
              createdAt: string;
              votes: {
                id: string;
                judgmentId: string;
                kind: string;
                index: number | null;
                value: number | null;
                hint: string | null;
                raw: string;
                error: string | null;
                latencyMs: number | null;
              }[];
            }[];
            labels: {
              id: string;
              turnId: string;
              /** @enum {string} */
              source: "REVIEWER" | "USER" | "JUDGE";
              value: number | null;
              hint: string | null;
              exclude: boolean | null;
              comment: string | null;
              userId: string | null;
              apiKeyId: string | null;
              /** Format: date-time */
              createdAt: string;
              user: {
                email: string;
              } | null;
              apiKey: {
                prefix: string;
              } | null;
            }[];
            samples: {
              id: string;
              runId: string;
              turnId: string;
              stepId: string | null;
              leaseId: string | null;
              leaseCount: number | null;
              /** @enum {string} */
              kind: "RL" | "OPD" | "BOTH";
              /** @enum {string} */
              labelSource: "REVIEWER" | "USER" | "JUDGE";
              reward: number | null;
              staleness: number | null;
              excluded: boolean;
              excludeReason: string | null;
              /** Format: date-time */
              createdAt: string;
              step: {
                step: number | null;
                policyVersion: number | null;
                /** Format: date-time */
                createdAt: string;
              } | null;
            }[];
            training: {
              turnId: string;
              experimentId: string;
              value: number | null;
              source: ("REVIEWER" | "USER" | "JUDGE") | null;
              labelId: string | null;
              judgmentId: string | null;
              hint: string | null;
              hintFromTurnId: string | null;
              needsTeacherRescore: boolean;
              teacherLogprobs: (number | null)[] | null;
              kind: ("RL" | "OPD" | "BOTH") | null;
              reward: number | null;
              groupNormalized?: boolean;
              excluded: boolean;
              excludeReason: string | null;
            } | null;
            opd: {
              cells: {
                text: string;
                gap: number | null;
                start: number | null;
                tokens: number | null;
              }[];
              tokenCount: number | null;
              meanGap: number | null;
              minGap: number | null;
              maxGap: number | null;
              decoded: boolean;
              warning: string | null;
            } | null;
            requestId: string;
            params: unknown;
            session: {
              externalId: string;
              done: boolean;
            };
            experiment: {
              name: string;
              slug: string;
            };
            messages: unknown[];
            tools: unknown;
            audit: {
              id: string;
              action: string;
              actor: string | null;
              actorKeyId: string | null;
              before: unknown;
              after: unknown;
              /** Format: date-time */
              createdAt: string;
            }[];
            method: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "review.queue": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            name: string;
            description: string;
            filter: {
              /** @enum {string} */
              status?: "FAILED" | "OK";
              /** @enum {string} */
              agreement?: "split" | "unanimous";
              policyVersion?: number | null;
              runId?: string;
              sessionId?: string;
              /** Format: date-time */
              from?: string;
              /** Format: date-time */
              to?: string;
              /** @enum {string} */
              turnType?: "MAIN" | "SIDE";
              /** @enum {string} */
              score?: "0" | "1" | "-1" | "unjudged";
              relabeled?: boolean;
              disputed?: boolean;
              q?: string;
            };
            reviewersPerItem: number | null;
            lockTtlS: number | null;
            assignees: string[];
            /** Format: date-time */
            createdAt: string;
            archivedAt: string | null;
            experimentName: string;
            pending: number | null;
            done: number | null;
            disputed: number | null;
            locked: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "review.updateQueue": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name?: string;
          description?: string;
          reviewersPerItem?: number;
          lockTtlS?: number;
          assignees?: string[];
          archived?: boolean;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            name: string;
            description: string;
            filter: {
              /** @enum {string} */
              status?: "FAILED" | "OK";
              /** @enum {string} */
              agreement?: "split" | "unanimous";
              policyVersion?: number | null;
              runId?: string;
              sessionId?: string;
              /** Format: date-time */
              from?: string;
              /** Format: date-time */
              to?: string;
              /** @enum {string} */
              turnType?: "MAIN" | "SIDE";
              /** @enum {string} */
              score?: "0" | "1" | "-1" | "unjudged";
              relabeled?: boolean;
              disputed?: boolean;
              q?: string;
            };
            reviewersPerItem: number | null;
            lockTtlS: number | null;
            assignees: string[];
            /** Format: date-time */
            createdAt: string;
            archivedAt: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "review.addTurns": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        queueId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          turnIds: string[];
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            added: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "review.next": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        queueId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": Record<string, never>;
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            turnId: string;
            queue: {
              id: string;
              name: string;
              experimentId: string;
              reviewersPerItem: number | null;
            };
            disputed: boolean;
            disputeReason: string | null;
            /** @enum {string} */
            status: "PENDING" | "DONE";
            submittedCount: number | null;
            lockExpiresAt: string | null;
            mine: {
              /** @enum {string} */
              verdict: "ACCEPT" | "FIX" | "REJECT";
              value: number | null;
              hint: string | null;
              exclude: boolean;
            } | null;
            submissions: {
              reviewer: string;
              /** @enum {string} */
              verdict: "ACCEPT" | "FIX" | "REJECT";
              value: number | null;
              exclude: boolean;
              hint: string | null;
              /** Format: date-time */
              createdAt: string;
            }[];
            agreement: {
              reviewers: number | null;
              agreeing: number | null;
              ratio: number | null;
            } | null;
          } | null;
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "review.skip": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        itemId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": Record<string, never>;
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            ok: boolean;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "review.release": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        itemId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": Record<string, never>;
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            ok: boolean;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "review.submit": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        itemId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @enum {string} */
          verdict: "ACCEPT" | "FIX" | "REJECT";
          value?: 1 | 0 | -1;
          hint?: string;
          exclude?: boolean;
          comment?: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            item: {
              id: string;
              turnId: string;
              queue: {
                id: string;
                name: string;
                experimentId: string;
                reviewersPerItem: number | null;
              };
              disputed: boolean;
              disputeReason: string | null;
              /** @enum {string} */
              status: "PENDING" | "DONE";
              submittedCount: number | null;
              lockExpiresAt: string | null;
              mine: {
                /** @enum {string} */
                verdict: "ACCEPT" | "FIX" | "REJECT";
                value: number | null;
                hint: string | null;
                exclude: boolean;
              } | null;
              submissions: {
                reviewer: string;
                /** @enum {string} */
                verdict: "ACCEPT" | "FIX" | "REJECT";
                value: number | null;
                exclude: boolean;
                hint: string | null;
                /** Format: date-time */
                createdAt: string;
              }[];
              agreement: {
                reviewers: number | null;
                agreeing: number | null;
                ratio: number | null;
              } | null;
            };
            labelId: string;
            training: {
              turnId: string;
              experimentId: string;
              value: number | null;
              source: ("REVIEWER" | "USER" | "JUDGE") | null;
              labelId: string | null;
              judgmentId: string | null;
              hint: string | null;
              hintFromTurnId: string | null;
              needsTeacherRescore: boolean;
              teacherLogprobs: (number | null)[] | null;
              kind: ("RL" | "OPD" | "BOTH") | null;
              reward: number | null;
              groupNormalized?: boolean;
              excluded: boolean;
              excludeReason: string | null;
            } | null;
            submittedCount: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "simulation.update": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        experimentId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          perMinute?: number;
          concurrency?: number;
          personas?: ("maya" | "leo" | "sam" | "ava")[];
          seed?: number;
          maxTurns?: number;
          enabled?: boolean;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            experimentId: string;
            enabled: boolean;
            settings: {
              perMinute: number | null;
              concurrency: number | null;
              personas: string[];
              seed: number | null;
              maxTurns: number | null;
            };
            updatedAt: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "simulation.progress": {
    parameters: {
      query?: {
        versions?: number;
      };
      header?: never;
      path: {
        experimentId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            experimentId: string;
            /** @enum {string} */
            versionsOf: "policy" | "adapter";
            servedVersion: number | null;
            steps: number | null;
            base: {
              version: number | null;
              turns: number | null;
              reward: number | null;
              firstTurns: number | null;
              firstReward: number | null;
              firstAt: string;
            } | null;
            versions: {
              version: number | null;
              turns: number | null;
              reward: number | null;
              firstTurns: number | null;
              firstReward: number | null;
              firstAt: string;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.set": {
    parameters: {
      query?: {
        version?: number;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            name: string;
            version: number | null;
            setVersionId: string;
            source: string;
            items: {
              id: string;
              key: string;
              messages: unknown;
              reference: string | null;
              rubric: string | null;
              persona: string | null;
              sourceTurnId: string | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.download": {
    parameters: {
      query?: {
        version?: number;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            name: string;
            version: number | null;
            jsonl: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "evaluation.get": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            createdAt: string;
            scores: {
              key: string;
              sample: number | null;
              seed: number | null;
              reply: string;
              score: number | null;
              detail: unknown;
              replyTokens: number | null;
              latencyMs: number | null;
            }[];
            error: string | null;
            status: string;
            id: string;
            experimentId: string;
            startedAt: string | null;
            policyVersion: number | null;
            grader: string;
            durationMs: number | null;
            promptTokens: number | null;
            settings: unknown;
            items: number | null;
            setVersionId: string;
            graderVersion: string;
            replies: number | null;
            mean: number | null;
            ciLow: number | null;
            ciHigh: number | null;
            replyTokens: number | null;
            finishedAt: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "environments.get": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            name: string;
            provider: string;
            limits: unknown;
            network: string;
            tools: unknown;
            pool: unknown;
            harness: unknown;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            health:
              | {
                  /** @constant */
                  ok: true;
                  detail: string;
                }
              | {
                  /** @constant */
                  ok: false;
                  reason: string;
                };
            episodes: {
              QUEUED: number | null;
              RUNNING: number | null;
              DONE: number | null;
              FAILED: number | null;
            };
            activeLeases: number | null;
            recent: {
              episodes: number | null;
              failed: number | null;
              truncationRatio: number | null;
              execP50Ms: number | null;
              execP95Ms: number | null;
              toolWaitShare: number | null;
              allocateP50Ms: number | null;
              allocateP95Ms: number | null;
              evaluateP50Ms: number | null;
              evaluateP95Ms: number | null;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "taskSets.get": {
    parameters: {
      query?: {
        version?: number;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            name: string;
            description: string;
            latestVersion: number | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            version: {
              id: string;
              setId: string;
              version: number | null;
              format: string;
              splitSeed: number | null;
              heldOutFraction: number | null;
              taskCount: number | null;
              /** Format: date-time */
              createdAt: string;
            };
            tasks: {
              id: string;
              index: number | null;
              key: string;
              kind: string;
              split: string;
              instruction: string;
              oracleStatus: string | null;
              oracleAt: string | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "taskSets.oracle": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        taskSetId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          version?: number;
          environmentId: string;
          /** @default 2 */
          repeats?: number;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            taskSetId: string;
            version: number | null;
            results: {
              key: string;
              /** @enum {string} */
              status: "verified" | "flaky" | "impossible" | "trivial" | "no_solution" | "broken";
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "episodes.get": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            environmentId: string;
            taskId: string;
            groupKey: string | null;
            sampleIndex: number | null;
            /** @enum {string} */
            status: "QUEUED" | "RUNNING" | "DONE" | "FAILED";
            sessionId: string | null;
            leaseId: string | null;
            leaseProvider: string | null;
            outcome: number | null;
            outcomeDetail: unknown;
            truncation: string | null;
            error: string | null;
            estimator: string;
            prm: boolean;
            maxSteps: number | null;
            maxTokens: number | null;
            attempts: number | null;
            heartbeatAt: string | null;
            /** Format: date-time */
            createdAt: string;
            startedAt: string | null;
            finishedAt: string | null;
            standingLaunchId: string | null;
            task: {
              key: string;
              kind: string;
              split: string;
            };
            steps: {
              id: string;
              episodeId: string;
              index: number | null;
              turnId: string | null;
              action: unknown;
              observation: unknown;
              prmVotes: unknown;
              prmScore: number | null;
              advantage: number | null;
              /** Format: date-time */
              createdAt: string;
            }[];
            screenshots: {
              index: number | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "episodes.launchSummary": {
    parameters: {
      query: {
        experiment: string;
        k?: number;
      };
      header?: never;
      path: {
        launchId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            launchId: string;
            episodes: number | null;
            pending: number | null;
            failed: number | null;
            truncated: number | null;
            policyVersions: (number | null)[];
            passAt1: {
              k: number | null;
              tasks: number | null;
              mean: number | null;
              low: number | null;
              high: number | null;
            };
            passAtK: {
              k: number | null;
              tasks: number | null;
              mean: number | null;
              low: number | null;
              high: number | null;
            };
            tasks: {
              key: string;
              split: string;
              n: number | null;
              c: number | null;
              passAt1: number | null;
              passAtK: number | null;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "standingLaunches.stop": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": Record<string, never>;
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            id: string;
            experimentId: string;
            environmentId: string;
            taskSetId: string;
            version: number | null;
            n: number | null;
            maxSteps: number | null;
            maxTokens: number | null;
            estimator: string;
            prm: boolean;
            maxGroupsInFlight: number | null;
            groupsLaunched: number | null;
            groupsInFlight: number | null;
            active: boolean;
            waitingForRun: boolean;
            stoppedAt: string | null;
            stopReason: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "endUsers.list": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        experimentId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            endUserId: string;
            turns: number;
            judgedTurns: number;
            lastTurnAt: string | null;
            servedVersion: number | null;
            servedAdapterId: string | null;
            versions: number;
            trainedSamples: number;
            lastTrainedAt: string | null;
            storageBytes: number;
            sessions: number;
            sessionsUntilStable: number | null;
            trend: {
              version: number;
              /** @enum {string} */
              state: "CANDIDATE" | "PROMOTED" | "SUPERSEDED" | "REJECTED" | "ROLLED_BACK";
              meanReward: number | null;
              evalScore: number | null;
              servedScore: number | null;
              samples: number;
              /** Format: date-time */
              createdAt: string;
            }[];
          }[];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "endUsers.curves": {
    parameters: {
      query?: {
        sharedExperimentId?: string;
      };
      header?: never;
      path: {
        experimentId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @enum {string} */
            versionOf: "adapter" | "policy";
            shared: {
              experimentId: string;
              name: string;
              points: {
                version: number;
                meanReward: number;
                turns: number;
                firstAt: string;
              }[];
            };
            users: {
              endUserId: string;
              points: {
                version: number;
                meanReward: number;
                turns: number;
                firstAt: string;
              }[];
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "endUsers.train": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        experimentId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": Record<string, never>;
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            endUserId: string;
            trained: boolean;
            version: number | null;
            state: ("PROMOTED" | "REJECTED") | null;
            samples: number;
          }[];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "batches.ack": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        leaseId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          step: number;
          /** @default {} */
          metrics?: {
            [key: string]: number;
          };
          weightVersion?: number;
          checkpointPath?: string;
          durationMs?: number;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            leaseId: string;
            step: number | null;
            trainingStepId: string;
            policyVersion: number | null;
            /** @enum {string} */
            policyVersionStatus: "ACTIVE" | "CANDIDATE";
            trainedSamples: number | null;
            lostSamples: number | null;
            replayed: boolean;
            adapter: {
              endUserId: string;
              adapterId: string;
              version: number | null;
              state: string;
            } | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "episodes.screenshot": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        index: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            episodeId: string;
            index: number | null;
            /** @constant */
            mimeType: "image/png";
            base64: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "endUsers.rollback": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        experimentId: string;
        endUserId: string | "*";
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": Record<string, never>;
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            endUserId: string;
            rolledBack: number;
            served: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "endUsers.registerAdapter": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        experimentId: string;
        endUserId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          path: string;
          rank: number;
          alpha: number;
        };
      };
    };
    responses: {
      /** @description Success */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            endUserId: string;
            adapterId: string;
            version: number;
            /** @enum {string} */
            state: "CANDIDATE" | "PROMOTED" | "SUPERSEDED" | "REJECTED" | "ROLLED_BACK";
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "endUsers.compare": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        experimentId: string;
        endUserId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @default 3 */
          limit?: number;
          /** @default 64 */
          maxTokens?: number;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            endUserId: string;
            adapterId: string;
            version: number;
            heldOut: boolean;
            pairs: {
              turnId: string;
              prompt: string;
              base: string;
              adapter: string;
            }[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "endUsers.delete": {
    parameters: {
      query?: never;
      header?: never;
      path: {
        experimentId: string;
        endUserId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            endUserId: string;
            adapters: number;
            turns: number;
            samples: number;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
      404: components["responses"]["Error"];
    };
  };
  "raw:GET /api/health": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": unknown;
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
    };
  };
  "raw:GET /api/openapi.json": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": unknown;
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
    };
  };
  "raw:POST /api/auth/login": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          email: string;
          password: string;
        };
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": unknown;
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
    };
  };
  "raw:POST /api/auth/logout": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            /** @constant */
            ok: true;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
    };
  };
  "raw:GET /api/stream/metrics": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "text/event-stream": unknown;
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
    };
  };
  "raw:POST /api/playground/chat": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": unknown;
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "text/event-stream": unknown;
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
    };
  };
  "raw:POST /api/playground/feedback": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": unknown;
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": unknown;
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
    };
  };
  "raw:GET /api/export/turns": {
    parameters: {
      query?: {
        experimentId?: string;
        runId?: string;
        sessionId?: string;
        turnType?: "MAIN" | "SIDE";
        status?: "OK" | "FAILED";
        score?: "0" | "1" | "-1" | "unjudged";
        agreement?: "unanimous" | "split";
        relabeled?: boolean | ("0" | "1" | "true" | "false");
        disputed?: boolean | ("0" | "1" | "true" | "false");
        from?: string;
        to?: string;
        policyVersion?: number;
        endUserId?: string;
        q?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/x-ndjson": unknown;
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
    };
  };
  "raw:POST /api/import/openclaw": {
    parameters: {
      query: {
        experimentId: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/x-ndjson": unknown;
      };
    };
    responses: {
      /** @description Success */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": unknown;
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["Error"];
      403: components["responses"]["Error"];
    };
  };
}
