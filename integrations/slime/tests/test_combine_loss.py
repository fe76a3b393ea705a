import unittest

from integrations.slime.combine_loss import combine_weights, combined_advantages, opd_adv_clamp, teacher_log_probs, teacher_source


class CombineAdvantageTest(unittest.TestCase):
    def test_weights_come_from_the_reference_env_names(self):
        self.assertEqual(combine_weights({"OPENCLAW_COMBINE_W_OPD": "0.5", "OPENCLAW_COMBINE_W_RL": "2"}), (0.5, 2.0))
        self.assertEqual(combine_weights({}), (1.0, 1.0))

    def test_advantage_is_weighted_teacher_gap_plus_weighted_grpo_advantage(self):
        # Sample A (OPD, 2 tokens, reward 0), sample B (RL, 1 token, reward 1, teacher = behaviour).
        teacher = [[-1.0, -2.0], [-0.5]]
        old = [[-1.5, -1.0], [-0.5]]
        grpo = [0.0, 0.0, 1.0]
        got = combined_advantages(teacher, old, grpo, w_opd=0.5, w_rl=2.0)
        # A: 0.5*(-1.0+1.5)=0.25, 0.5*(-2.0+1.0)=-0.5 ; B: 0.5*0 + 2*1 = 2
        self.assertEqual(list(got), [0.25, -0.5, 2.0])

    def test_without_teacher_log_probs_only_the_rl_term_remains(self):
        self.assertEqual(list(combined_advantages(None, [[0.0]], [1.0, -1.0], w_opd=1.0, w_rl=3.0)), [3.0, -3.0])

    def test_the_clamp_caps_the_teacher_gap_before_the_weight(self):
        self.assertEqual(opd_adv_clamp({"OPENCLAW_OPD_ADV_CLAMP": "2"}), 2.0)
        self.assertEqual(opd_adv_clamp({}), 0.0)
        got = combined_advantages([[-6.0, 4.0, -1.0]], [[-1.0, -1.0, -1.5]], [1.0, 1.0, 1.0], w_opd=0.5, w_rl=1.0, clamp=2.0)
        # gaps -5, 5, 0.5 -> clamped -2, 2, 0.5 -> *0.5 + 1
        self.assertEqual(list(got), [0.0, 2.0, 1.25])

    def test_mismatched_batches_are_refused(self):
        with self.assertRaises(ValueError):
            combined_advantages([[0.0]], [[0.0], [0.0]], [0.0], 1.0, 1.0)



class TeacherSourceTest(unittest.TestCase):
    def test_the_in_job_teacher_is_read_from_prm_teacher_log_probs(self):
        batch = {"teacher_log_probs": [[-1.0]], "prm_teacher_log_probs": [[-0.5]]}
        self.assertEqual(teacher_log_probs(batch, "megatron"), [[-0.5]])
        self.assertEqual(teacher_log_probs(batch, "inference"), [[-1.0]])
        self.assertIsNone(teacher_log_probs({}, "inference"))

    def test_the_in_job_teacher_without_its_log_probs_stops_the_step(self):
        with self.assertRaises(RuntimeError):
            teacher_log_probs({"teacher_log_probs": [[-1.0]]}, "megatron")

    def test_the_source_comes_from_upstreams_variable(self):
        self.assertEqual(teacher_source({}), "inference")
        self.assertEqual(teacher_source({"OPENCLAW_COMBINE_OPD_TEACHER_SOURCE": "Megatron"}), "megatron")
        with self.assertRaises(ValueError):
            teacher_source({"OPENCLAW_COMBINE_OPD_TEACHER_SOURCE": "router"})


if __name__ == "__main__":
    unittest.main()
