// The experiment configuration as the API returns it: the config schema's own fields (secrets are never
// returned: see config/secrets.ts), so a field added to the config cannot be stripped from answers.
export { ExperimentConfigShape as ExperimentConfigOutput } from "../../../config/experimentConfig";
