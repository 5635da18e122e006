"""results.py's aot section and its merge with an earlier run's sections, on synthetic records.

  python3 bench/warmup/results_test.py
"""

import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402

CPU = {"machine_busy_share": 0.9, "cores": 2, "pods": 20.0, "operator": 1.0}


def machine(date, commit):
    return {"section": "machine", "description": "2 cores", "date": date, "commit": commit, "k6": "k6 v1"}


def pod(start, containers_ready, ready):
    return {"ip": "10.0.0.1", "first_seen": start, "containers_ready": containers_ready, "ready": ready}


def steady_pass(p95):
    """A pass of 100 latencies whose P95 (k6's interpolation) is P95."""
    return {"p95": p95, "latencies": [p95 * 0.5] * 94 + [p95] * 6}


def strategy_record(section, target, strategy, pods, runs=None, ratios=None, training=None, steady=20.0, trials=None,
                    floor=None):
    """A cluster_bench.py record. PODS: name -> (start, ContainersReady, Ready); RATIOS: name -> first-100 /
    fully warm; STEADY: every pod's fully warm P95 (ms); TRIALS: the all-Ready time of each trial (default one,
    the last Ready)."""
    ratios = ratios or {n: 2.0 for n in pods}
    times = trials or [max(p[2] for p in pods.values())] if pods else []
    r = {"section": section, "target": target, "strategy": strategy, "n_from": 0, "n_to": len(pods),
         "t_scale": 0.0, "all_ready": True, "all_ready_s": statistics.median(times) if times else None,
         "timeout_s": 900, "wall_s": 60.0, "cpu": dict(CPU), "pods": {n: pod(*p) for n, p in pods.items()},
         "first_errors": {}, "runs": runs or {}, "peer": None, "floor": floor,
         "trials": [{"n_from": 0, "n_to": len(pods), "t_scale": 0.0, "pods": sorted(pods), "all_ready": True,
                     "all_ready_s": t, "wall_s": 60.0, "cpu": dict(CPU)} for t in times],
         "quality": {n: {"first100": {"p50": steady * q / 2, "p90": steady * q * 0.9, "p95": steady * q,
                                      "sent": ["GET /exams/1", "POST /exams/1/answers"]},
                         "steady_p95": steady, "ratio": q, "steady_passes": [steady_pass(steady)] * 3,
                         "jit_cpu_s_at_ready": 4.0, "jit_cpu_s_fully_warm": 5.0}
                     for n, q in ratios.items()}}
    if section == "aot":
        r["training"] = training
        r["pod_aot_cache"] = {n: ("ab" * 32 if strategy == "danki_aot" else None) for n in pods}
    if section == "boost":
        r["boost"] = {"own_cpu": "150m", "boost_cpu": "350m" if strategy == "danki_boost" else None}
    return r


def run(cold_p95, warmup, aot_cache):
    return {"cold": {"p95": cold_p95}, "warm": {"p95": 10.0}, "requests": {"warmup": warmup}, "aotCache": aot_cache,
            "stopReason": "Converged"}


TRAINED = {"ready": True, "phase": "Ready", "reason": "Trained", "message": None, "apply_to_ready_s": 120.0,
           "timeout_s": 900, "training_requests": 2000, "size_bytes": 70 * 2**20, "sha256": "ab" * 32,
           "trained_at": "2026-11-26T10:00:00Z"}


def aot_run(target, with_start_s=4.0, with_gap_s=14.0, with_ratio=1.2, with_steady=20.0):
    """An aot-only run: without the cache 10 s to ContainersReady and 40 s to Ready, first-100 P95 26 ms on
    a fully warm 20; with it as given."""
    return [machine("2026-11-27T10:00:00Z", "bbbbbbb"),
            strategy_record("aot", target, "danki", {"p1": (0.0, 10.0, 50.0)}, {"p1": run(900.0, 2000, None)},
                            {"p1": 1.3}),
            strategy_record("aot", target, "danki_aot", {"p2": (0.0, with_start_s, with_start_s + with_gap_s)},
                            {"p2": run(300.0, 600, "used")}, {"p2": with_ratio}, TRAINED, with_steady)]


def full_run():
    return [machine("2026-11-26T07:45:09Z", "aaaaaaa"),
            {"section": "layout", "nodes": [{"node": "n1", "role": "worker", "cpu": "350m", "memory": "1Gi"}],
             "scaleup_to": 4},
            strategy_record("single", "sample", "danki", {"p0": (0.0, 10.0, 70.0)}, {"p0": run(900.0, 2003, None)})]


class ResultsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.json_path = os.path.join(self.dir.name, "warmup.json")

    def tearDown(self):
        self.dir.cleanup()

    def render(self, records):
        path = os.path.join(self.dir.name, "records.jsonl")
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            results.main(path, self.json_path)
        with open(self.json_path) as f:
            return out.getvalue(), json.load(f)

    def test_aot_ratios_are_the_sample_targets_with_over_without(self):
        _, doc = self.render(aot_run("sample-jdk25"))
        self.assertAlmostEqual(doc["aot"]["start_to_containers_ready_ratio"], 0.4)
        self.assertAlmostEqual(doc["aot"]["containers_ready_to_ready_ratio"], 0.35)
        figures = doc["aot"]["sample-jdk25"]["with_cache"]
        self.assertEqual(figures["pods"]["p2"]["aot_cache"], "used")
        self.assertEqual(figures["cold_p95_ms_median"], 300.0)
        self.assertEqual(figures["warmup_requests_median"], 600)
        self.assertEqual(figures["training"]["training_requests"], 2000)

    def test_aot_goals_join_the_goals_list_in_its_format(self):
        _, doc = self.render(aot_run("sample-jdk25", with_start_s=7.0, with_ratio=1.4))
        goals = {g["goal"]: g for g in doc["goals"] if g["goal"].startswith("AOT cache")}
        start = goals["AOT cache: start -> ContainersReady, with / without"]
        self.assertEqual((start["met"], start["limit"]), (False, 0.6))
        self.assertAlmostEqual(start["over_by"], 0.7 / 0.6)
        self.assertIn("machine 90 % busy", start["why"])
        self.assertTrue(goals["AOT cache: ContainersReady -> Ready, with / without"]["met"])
        self.assertFalse(goals["AOT cache: first-100 P95, with / without"]["met"])
        self.assertEqual(set(start), set(doc["goals"][0]))

    def test_first100_quality_is_the_p95_users_meet_not_its_ratio_to_each_pods_own_floor(self):
        # with the cache: first-100 P95 20 ms on a fully warm 10 (2.0x); without: 26 ms on 20 (1.3x)
        _, doc = self.render(aot_run("sample-jdk25", with_ratio=2.0, with_steady=10.0))
        ratios = doc["aot"]["sample-jdk25"]["ratios"]
        self.assertAlmostEqual(ratios["first100_p95"], 20.0 / 26.0)
        self.assertAlmostEqual(ratios["first100_over_fully_warm"], 2.0 / 1.3)
        goals = {g["goal"]: g for g in doc["goals"] if g["goal"].startswith("AOT cache")}
        self.assertTrue(goals["AOT cache: first-100 P95, with / without"]["met"])

    def test_the_jit_rule_side_gets_its_own_columns_and_ratios_but_no_goals(self):
        jit = strategy_record("aot", "sample-jdk25", "danki_aot_jit", {"p3": (0.0, 4.0, 34.0)},
                              {"p3": run(300.0, 3000, "used")}, {"p3": 1.0}, TRAINED)
        md, doc = self.render(aot_run("sample-jdk25") + [jit])
        figures = doc["aot"]["sample-jdk25"]
        self.assertAlmostEqual(figures["jit_rule_ratios"]["containers_ready_to_ready"], 0.75)
        self.assertAlmostEqual(figures["ratios"]["containers_ready_to_ready"], 0.35)
        self.assertEqual(figures["with_cache_jit_rule"]["warmup_requests_median"], 3000)
        self.assertIn("| | danki without cache | danki with cache | with / without | with cache, JIT rule | with / without |"
                      .replace("| |", "|  |"), md)
        self.assertIn("| ContainersReady -> Ready (median) | 40.0 s | 14.0 s | 0.35x | 30.0 s | 0.75x |", md)
        self.assertIn("with cache, JIT rule: Training: Deployment applied", md)
        self.assertEqual(sum(1 for g in doc["goals"] if g["goal"].startswith("AOT cache")), 3)

    def test_without_the_jit_rule_side_the_table_has_no_column_for_it(self):
        md, doc = self.render(aot_run("sample-jdk25"))
        self.assertNotIn("JIT rule", md)
        self.assertNotIn("jit_rule_ratios", doc["aot"]["sample-jdk25"])

    def test_spring_shop_figures_go_under_their_target_not_the_top_ratios(self):
        _, doc = self.render(aot_run("spring-shop-jdk25"))
        self.assertIn("spring-shop-jdk25", doc["aot"])
        self.assertIsNone(doc["aot"]["start_to_containers_ready_ratio"])

    def test_a_failed_training_says_why_and_misses_its_goals(self):
        failed = dict(TRAINED, ready=False, phase="Unsupported", reason="OldJvm", apply_to_ready_s=None)
        records = aot_run("sample-jdk25")
        records[2] = {"section": "aot", "target": "sample-jdk25", "strategy": "danki_aot", "training": failed,
                      "pods": {}, "quality": {}, "runs": {}, "all_ready": False, "all_ready_s": None, "trials": []}
        md, doc = self.render(records)
        self.assertIn("not Ready within 900 s (phase Unsupported, OldJvm", md)
        goal = next(g for g in doc["goals"] if g["goal"].startswith("AOT cache: start"))
        self.assertEqual((goal["value"], goal["met"]), (None, False))
        self.assertIn("Unsupported", goal["why"])

    def test_an_aot_only_run_keeps_the_earlier_runs_sections_and_names_that_run(self):
        self.render(full_run())
        md, doc = self.render(aot_run("sample-jdk25"))
        self.assertEqual(doc["targets"]["sample"]["single"]["danki"]["warmup_requests"], [2003])
        self.assertEqual(doc["section_runs"]["single"]["commit"], "aaaaaaa")
        self.assertEqual(doc["section_runs"]["aot"]["commit"], "bbbbbbb")
        self.assertEqual(doc["machine"]["commit"], "bbbbbbb")
        self.assertIn("## 1. One new pod\n\n*From an earlier run: 2026-11-26T07:45:09Z at commit aaaaaaa.*", md)
        self.assertIn("## 6. JDK AOT cache (JDK 25)\n\nOne new pod", md)
        self.assertIn("except the sections that name an earlier one", md)
        goals = {(g["goal"], g["target"]) for g in doc["goals"]}
        self.assertIn(("one new pod: ContainersReady -> Ready (s), median over pods", "sample"), goals)
        self.assertIn(("AOT cache: ContainersReady -> Ready, with / without", "sample-jdk25"), goals)

    def test_an_aot_scale_up_of_three_pods_is_judged_on_the_medians_over_its_pods(self):
        without = {f"p{i}": (0.0, 10.0, 10.0 + gap) for i, gap in enumerate((30.0, 40.0, 90.0))}
        with_cache = {f"q{i}": (0.0, 5.0, 5.0 + gap) for i, gap in enumerate((20.0, 22.0, 60.0))}
        md, doc = self.render([
            machine("2026-11-27T10:00:00Z", "bbbbbbb"),
            strategy_record("aot", "sample-jdk25", "danki", without, {n: run(900.0, 2003, None) for n in without}),
            strategy_record("aot", "sample-jdk25", "danki_aot", with_cache,
                            {n: run(300.0, 1003, "used") for n in with_cache}, training=TRAINED)])
        self.assertIn("## 6. JDK AOT cache (JDK 25)\n\n3 new pods at once (0 -> 3), each on a worker node of its own,", md)
        self.assertIn("as in section 2; each figure is the median over the pods", md)
        # 22 / 40, not the mean's (34 / 53.3) nor the outlier's
        self.assertAlmostEqual(doc["aot"]["containers_ready_to_ready_ratio"], 0.55)
        self.assertAlmostEqual(doc["aot"]["start_to_containers_ready_ratio"], 0.5)
        self.assertEqual(doc["aot"]["sample-jdk25"]["with_cache"]["pods_ready"], 3)

    def test_the_boost_section_compares_both_sides_on_medians_and_keeps_the_earlier_sections(self):
        self.render(full_run())
        own = {f"p{i}": (0.0, 10.0, 10.0 + gap) for i, gap in enumerate((50.0, 60.0, 90.0))}
        boosted = {f"q{i}": (0.0, 10.0, 10.0 + gap) for i, gap in enumerate((20.0, 30.0, 31.0))}
        boost_run = {n: dict(run(400.0, 2003, None), cpuBoost={"summary": "150m->350m"}) for n in boosted}
        md, doc = self.render([
            machine("2026-11-27T11:00:00Z", "ccccccc"),
            strategy_record("boost", "sample", "danki_limited", own, {n: run(900.0, 2003, None) for n in own},
                            {n: 3.0 for n in own}),
            strategy_record("boost", "sample", "danki_boost", boosted, boost_run, {n: 1.5 for n in boosted})])
        self.assertIn("## 7. CPU boost while gated\n\n3 new pods at once (0 -> 3) per target", md)
        self.assertIn("| danki at the pod's limit (150m) | danki, boosted to 350m while gated | boosted / own |", md)
        self.assertIn("| WarmupRun status.cpuBoost.summary | -, -, - | 150m->350m, 150m->350m, 150m->350m |  |", md)
        # medians: 30 / 60, and 1.5 / 3.0
        self.assertAlmostEqual(doc["boost"]["sample"]["ratios"]["containers_ready_to_ready"], 0.5)
        self.assertAlmostEqual(doc["boost"]["sample"]["ratios"]["first100_over_fully_warm"], 0.5)
        self.assertIn("## 1. One new pod\n\n*From an earlier run: 2026-11-26T07:45:09Z at commit aaaaaaa.*", md)
        self.assertNotIn("boost", {g["goal"] for g in doc["goals"]})

    def test_the_speed_section_judges_every_lever_against_no_warm_up_and_gives_each_lever_its_share(self):
        def speed(strategy, ready, ratio, unwarmed=False):
            pods = {f"{strategy}-{i}": (0.0, 5.0, t) for i, t in enumerate(ready)}
            runs = {n: dict(run(300.0, 1203, "used"), cpuBoost={"summary": "150m->3"}) for n in pods}
            r = strategy_record("speed", "sample-jdk25", strategy, pods, runs, {n: ratio for n in pods})
            r["own_cpu"] = "150m"
            r["pod_jvm_options"] = {n: "-XX:ActiveProcessorCount=1" for n in pods}
            if unwarmed:
                for q in r["quality"].values():
                    q.update(steady_p95=None, steady_passes=[], ratio=None)
            return r

        md, doc = self.render([
            machine("2026-11-29T19:00:00Z", "ddddddd"),
            speed("none", (30.0, 32.0, 34.0), 20.0), speed("danki_all", (40.0, 42.0, 44.0), 1.2),
            speed("danki_own", (90.0, 100.0, 110.0), 1.4, True), speed("danki_no_boost", (70.0, 72.0, 74.0), 1.3, True),
            speed("danki_no_aot", (50.0, 52.0, 54.0), 1.3, True)])
        t = doc["speed"]["sample-jdk25"]
        self.assertAlmostEqual(t["all_over_cold"], 42.0 / 32.0)
        self.assertAlmostEqual(t["saved_against_own_limit_s"], 58.0)
        self.assertAlmostEqual(t["levers"]["danki_no_boost"]["slower_without_s"], 30.0)
        self.assertAlmostEqual(t["levers"]["danki_no_boost"]["share_of_saving"], 30.0 / 58.0)
        self.assertAlmostEqual(t["levers"]["danki_no_aot"]["share_of_saving"], 10.0 / 58.0)
        # the pool is the fully warmed sides' passes (20 ms): the all-levers pods' first 100 at 24 ms
        self.assertAlmostEqual(t["sides"]["danki_all"]["first100_p95_over_pooled_median"], 1.2)
        self.assertAlmostEqual(t["sides"]["danki_own"]["first100_p95_over_pooled_median"], 1.4)
        goals = {g["goal"]: g for g in doc["goals"] if g["target"] == "sample-jdk25"}
        self.assertTrue(goals["speed of cold: scale -> Ready, every lever / no warm-up (medians over pods)"]["met"])
        self.assertTrue(goals["speed of cold: first-100 P95 / pooled fully warm P95, every lever"]["met"])
        self.assertIn("## 8. Warm at the speed of cold\n\n3 new pods at once (0 -> 3) per JDK 25 target", md)
        self.assertIn("| kubectl scale -> Ready (median, 95 % interval) | 32.0 s (30.0 to 34.0) | 42.0 s", md)
        self.assertIn("| the boost from admission | 30.0 s | 52 % | 1.30x |", md)

    def test_danki_s_own_waits_are_percentiles_over_every_pod_it_warmed(self):
        # completionTime 100.0 s after the epoch; the watch saw each pod Ready 40 ms to 2 s later
        done = "1970-01-01T00:01:40Z"
        pods = {f"p{i}": (0.0, 10.0, 100.0 + ready) for i, ready in enumerate((0.04, 0.05, 0.06, 2.0))}
        runs = {name: {"phase": "Succeeded", "reactionMillis": 100 * (i + 1), "k6StartupMillis": 50,
                       "completionTime": done} for i, name in enumerate(pods)}
        runs["p3"]["phase"] = "Failed"  # a failed run is no decision to Ready
        records = [machine("2026-11-27T10:00:00Z", "ccccccc"),
                   strategy_record("single", "sample", "danki", pods, runs)]
        out, doc = self.render(records)
        waits = doc["critical_path"]
        self.assertEqual(waits["pods"], 3)
        self.assertEqual((waits["reaction_ms"]["p50"], waits["reaction_ms"]["p95"]), (200, 300))
        self.assertAlmostEqual(waits["decision_to_ready_ms"]["p50"], 50.0, places=3)
        self.assertAlmostEqual(waits["decision_to_ready_ms"]["max"], 60.0, places=3)
        self.assertIn("## 9. danki's own waits", out)
        self.assertIn("| ContainersReady -> first warm-up request | 3 | 200 | 300 | 300 |", out)

    def test_a_full_run_replaces_every_section_it_measured(self):
        self.render(aot_run("sample-jdk25"))
        md, doc = self.render(full_run() + aot_run("sample-jdk25")[1:])
        self.assertNotIn("earlier run", md)
        self.assertIn("Everything below comes from this one run", md)
        self.assertEqual({r["commit"] for r in doc["section_runs"].values()}, {"aaaaaaa"})

    def test_each_section_says_whether_its_images_were_pulled_before_the_scale(self):
        pulled = aot_run("sample-jdk25")
        for r in pulled[1:]:
            r["prepulled"] = ["danki/sample-service-jdk25:dev"]
        md, doc = self.render(pulled)
        self.assertIn("pulled its images onto every worker node", md)
        self.assertEqual(doc["aot"]["sample-jdk25"]["with_cache"]["prepulled"], ["danki/sample-service-jdk25:dev"])
        md, _ = self.render(full_run())
        self.assertIn("The images were not pulled beforehand", md)
        self.assertIn("earlier run", md)


    def test_every_steady_pass_of_every_pod_of_a_target_is_pooled_into_one_reference(self):
        danki = {f"d{i}": (0.0, 10.0, 20.0) for i in range(5)}
        none = {f"n{i}": (0.0, 10.0, 10.0) for i in range(5)}
        _, doc = self.render([machine("2026-11-29T10:00:00Z", "ddddddd"),
                              strategy_record("single", "sample", "danki", danki, steady=10.0),
                              strategy_record("single", "sample", "none", none, steady=30.0, ratios={n: 5.0 for n in none})])
        ref = doc["targets"]["sample"]["pooled_fully_warm"]
        self.assertEqual((ref["p95"]["groups"], ref["p95"]["samples"]), (30, 3000))
        # 94 % of the 3,000 are at half their pass's P95 (5 or 15 ms), the slowest 180 at 10 or 30 ms
        self.assertEqual(doc["targets"]["sample"]["pooled_fully_warm_p95_ms"], 15.0)
        lo, hi = ref["p95"]["ci95"]
        self.assertLessEqual(lo, 15.0)
        self.assertGreaterEqual(hi, 15.0)
        single = doc["targets"]["sample"]["single"]["danki"]
        self.assertAlmostEqual(single["first100_p95_over_pooled_median"], 20.0 / 15.0)
        self.assertAlmostEqual(single["jit_cpu_done_at_ready"]["value"], 0.8)

    def test_goals_say_where_strategies_differ_beyond_their_intervals(self):
        danki = {f"d{i}": (0.0, 10.0, 22.0) for i in range(6)}
        peer = {f"p{i}": (0.0, 10.0, 12.0) for i in range(6)}
        none = {f"n{i}": (0.0, 10.0, 10.0) for i in range(6)}
        _, doc = self.render([
            machine("2026-11-29T10:00:00Z", "ddddddd"),
            strategy_record("scaleup", "sample", "danki", danki, ratios={n: 1.0 + i / 10 for i, n in enumerate(danki)},
                            trials=[20.0, 24.0]),
            strategy_record("scaleup", "sample", "peer_node100", peer, ratios={n: 10.0 + i for i, n in enumerate(peer)},
                            trials=[12.0, 13.0]),
            strategy_record("scaleup", "sample", "none", none, ratios={n: 100.0 for n in none}, trials=[10.0, 10.0])])
        goals = {g["goal"]: g for g in doc["goals"] if g["target"] == "sample"}
        scale = goals["scale-up all Ready, danki / no warm-up"]
        self.assertAlmostEqual(scale["value"], 22.0 / 10.0)
        self.assertFalse(scale["met"])
        self.assertIn("trials 20.0 s, 24.0 s against 10.0 s, 10.0 s", scale["evidence"])
        beyond = goals["scale-up first-100 P95, danki / peer (upper end of its 95 % interval)"]
        self.assertTrue(beyond["met"])
        self.assertLess(beyond["value"], 1.0)
        self.assertTrue(goals["pooled fully warm P95: 95 % interval within +-15 %"]["met"])

    def test_strategies_whose_intervals_overlap_do_not_differ(self):
        a = {f"a{i}": (0.0, 10.0, 20.0) for i in range(5)}
        b = {f"b{i}": (0.0, 10.0, 20.0) for i in range(5)}
        md, _ = self.render([
            machine("2026-11-29T10:00:00Z", "ddddddd"),
            strategy_record("single", "sample", "danki", a, ratios={n: r for n, r in zip(a, (1, 2, 3, 4, 5))}),
            strategy_record("single", "sample", "none", b, ratios={n: r for n, r in zip(b, (1.5, 2, 3, 4, 6))})])
        self.assertRegex(md, r"\| first-100 P95 \| no warm-up \| 1.00x \| [0-9.]+ to [0-9.]+x \| no \|")

    def test_routes_the_first_100_sent_that_the_plan_never_warms_are_named(self):
        r = strategy_record("single", "sample", "danki", {"p": (0.0, 1.0, 2.0)})
        r["quality"]["p"]["first100"]["sent"] = ["GET /exams/3", "POST /exams/3/answers", "GET /sleep-sync"]
        md, doc = self.render([machine("2026-11-29T10:00:00Z", "ddddddd"), r])
        self.assertEqual(doc["targets"]["sample"]["unwarmed_routes"], ["GET /sleep-sync"])
        self.assertIn("| GET /sleep-sync |", md)

    def test_the_sweep_judges_each_floor_against_the_pooled_reference_of_the_fully_warmed_pods(self):
        pods = {f"d{i}": (0.0, 10.0, 15.0) for i in range(5)}
        floor = strategy_record("sweep", "sample", "danki", {"s": (0.0, 10.0, 13.0)}, floor="300",
                                ratios={"s": 3.0}, steady=10.0)
        floor["quality"]["s"].update(steady_passes=[], steady_p95=None, jit_cpu_s_fully_warm=None, jit_cpu_s_at_ready=2.5)
        md, doc = self.render([machine("2026-11-29T10:00:00Z", "ddddddd"),
                               strategy_record("single", "sample", "danki", pods, steady=10.0), floor])
        cell = doc["targets"]["sample"]["sweep"]["floor 300"]
        self.assertAlmostEqual(cell["first100_p95_over_pooled_median"], 30.0 / 10.0)
        self.assertAlmostEqual(cell["jit_cpu_done_at_ready"]["value"], 0.5)
        self.assertIn("## 3. danki's floor", md)

    def test_records_of_the_bench_before_its_trials_are_not_judged(self):
        old = strategy_record("single", "sample", "danki", {"p": (0.0, 1.0, 2.0)})
        del old["trials"]
        md, doc = self.render([machine("2026-11-29T10:00:00Z", "ddddddd"), old])
        self.assertEqual(doc["targets"], {})
        self.assertNotIn("## 1. One new pod", md)

    def test_the_layout_says_the_nodes_cfs_period(self):
        records = full_run()
        records[1]["node_cfs_period_ms"] = 10
        md, doc = self.render(records)
        self.assertEqual(doc["layout"]["node_cfs_period_ms"], 10)
        self.assertIn("a CFS quota over a period of 10 ms", md)
        self.assertIn("so at most 6.5 ms on a 350m node", md)

    def test_a_layout_of_whole_cpus_says_no_stall_of_a_negative_time(self):
        # nodes of 2 CPUs (the -XX:ActiveProcessorCount run): one busy thread never spends the quota
        records = full_run()
        records[1]["node_cfs_period_ms"] = 10
        records[1]["nodes"] = [{"node": "n1", "role": "worker", "cpu": "2", "memory": "1Gi"}]
        md, _ = self.render(records)
        self.assertIn("which on a node of 2 CPU takes more threads than its budget's cores to reach", md)
        self.assertNotIn("at most -", md)


if __name__ == "__main__":
    unittest.main()
