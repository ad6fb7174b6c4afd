// SPDX-License-Identifier: GPL-2.0-or-later
// The plugin's Slurm-free parts: plugstack.conf arguments, option checks,
// and the environment strings.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "pin_components.h"
#include "site_store.h"
#include "pin_config.h"
}

namespace {

int parse(pin_config& c, std::vector<std::string> args, std::string* error = nullptr) {
  std::vector<char*> av;
  for (auto& a : args) av.push_back(a.data());
  char err[1024] = "";
  pin_config_defaults(&c);
  int rc = pin_config_parse(&c, static_cast<int>(av.size()), av.data(), err, sizeof err);
  if (rc == 0) rc = pin_config_check(&c, err, sizeof err);
  if (error) *error = err;
  return rc;
}

}  // namespace

TEST(PluginConfig, ParsesEveryArgument) {
  pin_config c;
  ASSERT_EQ(parse(c, {"default=scatter", "allowed=none,scatter,lpgp,file", "store=/var/lib/p", "enforce",
                      "exclusive_only", "topology=/etc/n.xml", "mem=local", "granularity=l3", "verbose",
                      "legacy_omp_env", "whole_node"}),
            0);
  EXPECT_STREQ(c.default_strategy, "scatter");
  EXPECT_STREQ(c.store, "/var/lib/p");
  EXPECT_STREQ(c.topology, "/etc/n.xml");
  EXPECT_STREQ(c.mem, "local");
  EXPECT_STREQ(c.granularity, "l3");
  EXPECT_TRUE(c.enforce && c.exclusive_only && c.verbose && c.legacy_omp_env && c.whole_node);
}

TEST(PluginConfig, WithoutStoreTheStoreIsTheSitesDefault) {
  // What the commands and the policy use when the line gives no store= (common/site_store.h).
  pin_config c;
  pin_config_defaults(&c);
  EXPECT_STREQ(c.store, SITE_STORE_DEFAULT);
}

TEST(PluginConfig, NamesTheKeyANearMissMeant) {
  pin_config c;
  std::string e;
  EXPECT_EQ(parse(c, {"defualt=compact"}, &e), -1);
  EXPECT_NE(e.find("'defualt=compact': did you mean default=?"), std::string::npos);
  EXPECT_STREQ(pin_config_suggest("enfroce"), "enforce");
  EXPECT_STREQ(pin_config_suggest("granulrity=core"), "granularity=");
  EXPECT_STREQ(pin_config_suggest("run-dir=/run/x"), "run_dir=");
  EXPECT_EQ(pin_config_suggest("colour=blue"), nullptr);
  EXPECT_EQ(pin_config_suggest(std::string(100000, 'd').c_str()), nullptr);  // linear, and far from every key
  EXPECT_EQ(parse(c, {"verbose=1"}, &e), -1);
  EXPECT_NE(e.find("verbose takes no value"), std::string::npos);
  // One argument at a time, as slurm-pin doctor checks a line.
  pin_config one;
  pin_config_defaults(&one);
  char err[512];
  EXPECT_EQ(pin_config_parse_arg(&one, "mem=local", err, sizeof err), 0);
  EXPECT_STREQ(one.mem, "local");
  EXPECT_EQ(pin_config_parse_arg(&one, "whole-node", err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("did you mean whole_node?"), std::string::npos);
}

TEST(PluginConfig, RejectsBadArguments) {
  pin_config c;
  std::string e;
  EXPECT_EQ(parse(c, {"colour=blue"}, &e), -1);
  EXPECT_NE(e.find("unknown plugstack.conf argument 'colour=blue'"), std::string::npos);
  EXPECT_EQ(parse(c, {"default=packed"}, &e), -1);
  EXPECT_NE(e.find("unknown strategy 'packed'"), std::string::npos);
  EXPECT_EQ(parse(c, {"mem=near"}, &e), -1);
  EXPECT_EQ(parse(c, {"granularity=socket"}, &e), -1);
  EXPECT_EQ(parse(c, {"default=lpgp", "allowed=none,compact"}, &e), -1);
  EXPECT_EQ(e, "default=lpgp is not in allowed=none,compact");
  EXPECT_EQ(parse(c, {"enforce=yes"}, &e), -1);
  EXPECT_EQ(parse(c, {std::string("store=") + std::string(5000, 'x')}, &e), -1);
  EXPECT_NE(e.find("too long"), std::string::npos);
}

TEST(PluginConfig, AllowedEnforcedAndEffectiveStrategies) {
  pin_config c;
  char err[1024];
  ASSERT_EQ(parse(c, {"default=compact", "allowed=none,compact,file"}), 0);
  EXPECT_EQ(pin_check_strategy(&c, "compact", err, sizeof err), 0);
  EXPECT_EQ(pin_check_strategy(&c, "file:/tmp/p", err, sizeof err), 0);
  EXPECT_EQ(pin_check_strategy(&c, "scatter", err, sizeof err), -1);
  EXPECT_STREQ(err, "strategy 'scatter' is not allowed on this cluster: use one of none,compact,file");
  pin_request r{};
  EXPECT_STREQ(pin_effective_strategy(&c, &r, nullptr), "compact");
  strcpy(r.strategy, "none");
  r.strategy_set = 1;
  EXPECT_STREQ(pin_effective_strategy(&c, &r, nullptr), "none");
  c.enforce = 1;
  EXPECT_STREQ(pin_effective_strategy(&c, &r, nullptr), "compact");
  EXPECT_EQ(pin_check_strategy(&c, "none", err, sizeof err), -1);
  EXPECT_STREQ(pin_effective_mem(&c, &r, nullptr), "none");
  strcpy(r.mem, "interleave");
  EXPECT_STREQ(pin_effective_mem(&c, &r, nullptr), "interleave");
}

TEST(PluginPolicy, ParsesDecisions) {
  pin_policy p;
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=lulesh mode=default strategy=lpgp profile=lulesh@2 mem=local", &p), 0);
  EXPECT_TRUE(p.present && p.applies && !p.enforce);
  EXPECT_STREQ(p.rule, "lulesh");
  EXPECT_STREQ(p.strategy, "lpgp");
  EXPECT_STREQ(p.profile, "lulesh@2");
  EXPECT_STREQ(p.mem, "local");
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=r mode=enforce strategy=compact applied=no", &p), 0);
  EXPECT_TRUE(p.enforce && !p.applies);
  ASSERT_EQ(pin_policy_parse("slurm-pin: none", &p), 0);
  EXPECT_FALSE(p.present);
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=r mode=sometimes", &p), -1);
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=r mode=default strategy=packed", &p), -1);
  // An explore decision (docs/autopilot.md) names its application, a store name.
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=learn mode=default strategy=none tasks=1 threads=4 explore=busy_pair", &p),
            0);
  EXPECT_STREQ(p.strategy, "none");
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=learn mode=default strategy=none explore=../x", &p), -1);
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=learn mode=default explore=a explore=b", &p), -1);
  // A recording job, and a candidate with the user's own profile.
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=learn mode=default strategy=none tasks=4 threads=1 explore=halo record=halo",
                             &p), 0);
  EXPECT_STREQ(p.record, "halo");
  EXPECT_TRUE(p.explore && !p.user_store);
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=learn mode=default strategy=lpgp profile=halo store=user explore=halo", &p),
            0);
  EXPECT_TRUE(p.user_store && p.explore && !p.record[0]);
  // store=user only for an explore candidate's profile; record only on an
  // explore decision without a profile; nothing else is a store or a record.
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=r mode=default strategy=lpgp profile=halo store=user", &p), -1);
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=r mode=default strategy=compact store=user explore=halo", &p), -1);
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=r mode=default strategy=lpgp profile=h store=/tmp explore=h", &p), -1);
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=r mode=default strategy=none record=halo", &p), -1);
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=r mode=default strategy=none explore=h record=../h", &p), -1);
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=r mode=default strategy=lpgp profile=h explore=h record=h", &p), -1);
  EXPECT_EQ(pin_policy_parse("slurm-pin: mode=default", &p), -1);  // no rule
  EXPECT_EQ(pin_policy_parse("hello", &p), -1);
}

// The text is what tests/lua/test_policy.lua has the policy write for one rule.
TEST(PluginPolicy, ParsesThreadBindingAndEnvironment) {
  pin_policy p;
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=measured mode=default strategy=compact thread_binding=preload "
                             "env.ODD=a%20b%3Dc%25d env.OMP_NUM_THREADS=4 env.OMP_WAIT_POLICY=passive",
                             &p),
            0);
  EXPECT_STREQ(p.thread_binding, "preload");
  ASSERT_EQ(p.nenv, 3);
  EXPECT_STREQ(p.env[0].name, "ODD");
  EXPECT_STREQ(p.env[0].value, "a b=c%d");
  EXPECT_STREQ(p.env[1].name, "OMP_NUM_THREADS");
  EXPECT_STREQ(p.env[1].value, "4");
  // Nothing a user could write into a field adds a variable the policy refuses.
  for (const char *bad : {"env.OMP_PLACES={0}", "env.LD_PRELOAD=/tmp/x.so", "env.SLURM_CPU_BIND=none", "env.1X=1",
                          "env.X=%0A", "env.X=%4", "env.X=%zz", "env.X=1 env.X=2", "env.=1", "thread_binding=always",
                          "thread_binding=env thread_binding=preload"}) {
    std::string text = std::string("slurm-pin: rule=r mode=default strategy=compact ") + bad;
    EXPECT_EQ(pin_policy_parse(text.c_str(), &p), -1) << bad;
  }
  // The shape a rule matched, recorded for slurmctld (test_policy.lua).
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=shaped mode=default strategy=compact tasks=2 threads=4 "
                             "env.OMP_NUM_THREADS=4",
                             &p),
            0);
  for (const char *bad : {"tasks=-1", "tasks=", "threads=1234567890", "threads=4 threads=4", "tasks=2x"}) {
    std::string text = std::string("slurm-pin: rule=r mode=default strategy=compact ") + bad;
    EXPECT_EQ(pin_policy_parse(text.c_str(), &p), -1) << bad;
  }
  std::string nine = "slurm-pin: rule=r mode=default strategy=compact";
  for (int i = 0; i < 9; ++i) nine += " env.V" + std::to_string(i) + "=1";
  EXPECT_EQ(pin_policy_parse(nine.c_str(), &p), -1);
}

TEST(PluginPolicy, EnvironmentAppliesAsTheRuleDoes) {
  pin_policy p;
  pin_request r{};
  int n, overwrite;
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=r mode=default strategy=compact env.OMP_NUM_THREADS=4", &p), 0);
  ASSERT_NE(pin_policy_env(&p, &r, &n, &overwrite), nullptr);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(overwrite, 0);  // the step's own value is kept
  r.strategy_set = 1;       // the user chose a strategy for this step: a default rule yields, env too
  EXPECT_EQ(pin_policy_env(&p, &r, &n, &overwrite), nullptr);
  EXPECT_EQ(n, 0);
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=r mode=enforce strategy=compact env.OMP_NUM_THREADS=4", &p), 0);
  ASSERT_NE(pin_policy_env(&p, &r, &n, &overwrite), nullptr);
  EXPECT_EQ(overwrite, 1);
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=r mode=default strategy=compact env.A=1 applied=no", &p), 0);
  r.strategy_set = 0;
  EXPECT_EQ(pin_policy_env(&p, &r, &n, &overwrite), nullptr);
}

TEST(PluginPolicy, ThreadBindingPrecedence) {
  pin_policy p;
  pin_request r{};
  EXPECT_STREQ(pin_effective_threads(&r, nullptr), "auto");
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=r mode=default strategy=compact thread_binding=preload", &p), 0);
  EXPECT_STREQ(pin_effective_threads(&r, &p), "preload");
  r.phases = 1;  // regions need the tool: phases beat a default rule
  EXPECT_STREQ(pin_effective_threads(&r, &p), "ompt");
  strcpy(r.threads, "env");
  EXPECT_STREQ(pin_effective_threads(&r, &p), "env");
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=r mode=enforce strategy=compact thread_binding=preload", &p), 0);
  EXPECT_STREQ(pin_effective_threads(&r, &p), "preload");
}

TEST(PluginPolicy, PrecedenceSiteEnforcePolicyEnforceUserPolicyDefaultSiteDefault) {
  pin_config c;
  pin_config_defaults(&c);
  strcpy(c.default_strategy, "scatter");
  pin_request user{};
  pin_policy dflt, enf;
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=d mode=default strategy=lpgp profile=app mem=local", &dflt), 0);
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=e mode=enforce strategy=compact", &enf), 0);
  EXPECT_STREQ(pin_effective_strategy(&c, &user, nullptr), "scatter");  // site default
  EXPECT_STREQ(pin_effective_strategy(&c, &user, &dflt), "lpgp");       // policy default
  EXPECT_STREQ(pin_effective_profile(&user, &dflt), "app");
  EXPECT_STREQ(pin_effective_mem(&c, &user, &dflt), "local");
  strcpy(user.strategy, "gp");
  strcpy(user.profile, "mine");
  user.strategy_set = 1;
  ASSERT_EQ(pin_policy_parse("slurm-pin: rule=d mode=default strategy=lpgp profile=app applied=no", &dflt), 0);
  EXPECT_STREQ(pin_effective_strategy(&c, &user, &dflt), "gp");  // the user wins over a default
  EXPECT_STREQ(pin_effective_profile(&user, &dflt), "mine");
  EXPECT_STREQ(pin_effective_strategy(&c, &user, &enf), "compact");  // an enforced rule wins over the user
  c.enforce = 1;
  EXPECT_STREQ(pin_effective_strategy(&c, &user, &enf), "scatter");  // plugstack enforce wins over all
}

TEST(PluginPolicy, DecisionsCannotBeExtendedOrSmuggled) {
  pin_policy p;
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=a mode=default strategy=compact", &p), 0);
  EXPECT_TRUE(p.present);
  // A field given twice (a user string appended to the record), a path as
  // a profile, a user file as a strategy, an unknown field: all refused.
  for (const char* bad : {"slurm-pin: rule=a mode=default strategy=compact strategy=random",
                          "slurm-pin: rule=a mode=default rule=evil", "slurm-pin: rule=a mode=default profile=../x",
                          "slurm-pin: rule=a mode=default profile=/etc/p", "slurm-pin: rule=a mode=default strategy=file:/x",
                          "slurm-pin: rule=a mode=default colour=red", "slurm-pin: rule=a mode=enforce applied=yes",
                          "slurm-pin: rule=a b mode=default", "slurm-pin: none rule=a mode=enforce"})
    EXPECT_EQ(pin_policy_parse(bad, &p), -1) << bad;
  EXPECT_EQ(pin_policy_parse("slurm-pin: rule=a mode=default profile=app@3 applied=no", &p), 0);
  EXPECT_STREQ(p.profile, "app@3");
  EXPECT_FALSE(p.applies);
}


// A heterogeneous component's options go through the job's environment:
// every value, including any byte a file name may hold, comes back as given.
TEST(PluginComponents, OptionsRoundTrip) {
  pin_request r{};
  std::strcpy(r.strategy, "file:/home/u/my place\tfile %20=x;y");
  r.strategy_set = 1;
  std::strcpy(r.profile, "app@2");
  std::strcpy(r.mem, "local");
  std::strcpy(r.threads, "ompt");
  std::strcpy(r.smt, "2");
  r.verbose = r.dryrun = r.phases = 1;
  char text[16384];
  ASSERT_EQ(pin_request_format(&r, text, sizeof text), 0);
  EXPECT_EQ(std::strchr(text, '\t'), nullptr);
  EXPECT_STREQ(text,
               "strategy=file:/home/u/my%20place%09file%20%2520%3Dx%3By profile=app@2 mem=local threads=ompt "
               "smt=2 flags=verbose,dryrun,phases");
  pin_request back{};
  ASSERT_EQ(pin_request_parse(text, &back), 0);
  EXPECT_STREQ(back.strategy, r.strategy);
  EXPECT_TRUE(back.strategy_set);
  EXPECT_STREQ(back.profile, "app@2");
  EXPECT_STREQ(back.mem, "local");
  EXPECT_STREQ(back.granularity, "");
  EXPECT_STREQ(back.threads, "ompt");
  EXPECT_STREQ(back.smt, "2");
  EXPECT_EQ(pin_check_request(&back, text, sizeof text), 0);
  // Values from the environment are checked like options.
  std::strcpy(back.smt, "0");
  EXPECT_EQ(pin_check_request(&back, text, sizeof text), -1);
  std::strcpy(back.smt, "");
  std::strcpy(back.mem, "everywhere");
  EXPECT_EQ(pin_check_request(&back, text, sizeof text), -1);
  EXPECT_TRUE(back.verbose && back.dryrun && back.phases);
  EXPECT_FALSE(back.oversubscribe);
  // No options: an empty text, and back to "nothing chosen".
  pin_request none{};
  ASSERT_EQ(pin_request_format(&none, text, sizeof text), 0);
  EXPECT_STREQ(text, "");
  ASSERT_EQ(pin_request_parse(text, &back), 0);
  EXPECT_FALSE(back.strategy_set);
  char small[8];
  EXPECT_EQ(pin_request_format(&r, small, sizeof small), -1);
}

TEST(PluginComponents, MalformedOptionsAreRefused) {
  pin_request r{};
  std::string long_value = "strategy=" + std::string(PIN_STRATEGY_MAX + 1, 'a');
  for (const char* bad : {"strategy", "=x", "strategy=", "strategy=a strategy=b", "colour=red", "flags=loud",
                          "flags=verbose flags=dryrun", "strategy=a%2", "strategy=a%zz", "strategy=a%00b",
                          "strategy=a\tb", "strategy=a  mem=local", "mem=" "aaaaaaaaaaaaaaaaaaaa", long_value.c_str()}) {
    std::strcpy(r.strategy, "x");
    EXPECT_EQ(pin_request_parse(bad, &r), -1) << bad;
    EXPECT_STREQ(r.strategy, "") << "a refused text leaves nothing behind: " << bad;
  }
}

TEST(PluginConfig, RunDirectoryAndCostBounds) {
  pin_config c;
  std::string e;
  ASSERT_EQ(parse(c, {"run_dir=/run/pin", "max_file=4M", "max_time=2.5", "max_memory=2G"}), 0);
  EXPECT_STREQ(c.run_dir, "/run/pin");
  EXPECT_EQ(c.max_file, 4ull << 20);
  EXPECT_DOUBLE_EQ(c.max_time, 2.5);
  EXPECT_EQ(c.max_memory, 2ull << 30);
  ASSERT_EQ(parse(c, {}), 0);
  EXPECT_STREQ(c.run_dir, "/run/slurm-pin");
  EXPECT_EQ(c.max_file, 16ull << 20);
  EXPECT_DOUBLE_EQ(c.max_time, 10);
  EXPECT_EQ(c.max_memory, 1ull << 30);
  EXPECT_EQ(parse(c, {"run_dir=relative"}, &e), -1);
  EXPECT_NE(e.find("give an absolute path"), std::string::npos);
  // Root's files for every user's steps never go where a user could make a
  // directory first: refused whether or not it exists yet.
  EXPECT_EQ(parse(c, {"run_dir=/tmp/slurm-pin-not-made"}, &e), -1);
  EXPECT_NE(e.find("run_dir=/tmp/slurm-pin-not-made: /tmp is writable by group or others"), std::string::npos) << e;
  EXPECT_NE(e.find("such as the default /run/slurm-pin"), std::string::npos) << e;
  EXPECT_EQ(parse(c, {"topology_cache=/tmp/node.xml"}, &e), -1);
  EXPECT_NE(e.find("topology_cache=/tmp/node.xml: /tmp is writable"), std::string::npos) << e;
  EXPECT_EQ(parse(c, {"topology_cache=none"}), 0);
  for (const char* bad : {"max_file=0", "max_file=2G", "max_file=12X", "max_file=-1", "max_time=0", "max_time=x",
                          "max_memory=1M", "max_memory=2048G", "max_memory=1T"})
    EXPECT_EQ(parse(c, {bad}, &e), -1) << bad;
  // The node's placement cache: 64 entries unless said, 0 for none.
  EXPECT_EQ(c.placement_cache, 64);
  ASSERT_EQ(parse(c, {"placement_cache=0"}), 0);
  EXPECT_EQ(c.placement_cache, 0);
  ASSERT_EQ(parse(c, {"placement_cache=4096"}), 0);
  EXPECT_EQ(c.placement_cache, 4096);
  for (const char* bad : {"placement_cache=-1", "placement_cache=4097", "placement_cache=x", "placement_cache="})
    EXPECT_EQ(parse(c, {bad}, &e), -1) << bad;
  EXPECT_NE(e.find("from 0 (none) to 4096"), std::string::npos) << e;
}

// More threads than a task's hardware threads share them unless the site
// says error; the user may then still ask, unless enforce holds it.
TEST(PluginConfig, OversubscriptionSharesUnlessTheSiteSaysError) {
  pin_config c;
  pin_request r{};
  std::string e;
  ASSERT_EQ(parse(c, {}), 0);
  EXPECT_EQ(pin_effective_oversubscribe(&c, &r), 1);
  ASSERT_EQ(parse(c, {"oversubscribe=error"}), 0);
  EXPECT_EQ(pin_effective_oversubscribe(&c, &r), 0);
  r.oversubscribe = 1;
  EXPECT_EQ(pin_effective_oversubscribe(&c, &r), 1);
  ASSERT_EQ(parse(c, {"oversubscribe=share"}), 0);
  EXPECT_EQ(c.oversubscribe_error, 0);
  EXPECT_EQ(parse(c, {"oversubscribe=yes"}, &e), -1);
  EXPECT_NE(e.find("give share"), std::string::npos) << e;
  ASSERT_EQ(parse(c, {"oversubscribe=error", "enforce"}), 0);
  char err[256];
  EXPECT_EQ(pin_check_enforced(&c, &r, err, sizeof err), -1);
  EXPECT_NE(std::string(err).find("remove --pin-oversubscribe"), std::string::npos) << err;
}

TEST(PluginConfig, EnforceHoldsEverySettingOrTheNamedOnes) {
  pin_config c;
  std::string e;
  char err[1024];
  ASSERT_EQ(parse(c, {"default=compact", "granularity=core", "enforce"}), 0);
  EXPECT_EQ(c.enforce, static_cast<unsigned>(PIN_ENFORCE_ALL));
  pin_request r{};
  EXPECT_EQ(pin_check_enforced(&c, &r, err, sizeof err), 0);  // nothing asked
  strcpy(r.granularity, "core");
  EXPECT_EQ(pin_check_enforced(&c, &r, err, sizeof err), 0);  // the site's own value
  strcpy(r.granularity, "numa");
  EXPECT_EQ(pin_check_enforced(&c, &r, err, sizeof err), -1);
  EXPECT_STREQ(err, "this cluster binds every step as it says (enforce: core): remove --pin-granularity");
  EXPECT_STREQ(pin_effective_granularity(&c, &r, nullptr), "core");
  r = pin_request{};
  r.oversubscribe = 1;
  EXPECT_EQ(pin_check_enforced(&c, &r, err, sizeof err), -1);
  r = pin_request{};
  r.phases = 1;
  EXPECT_EQ(pin_check_enforced(&c, &r, err, sizeof err), -1);
  r = pin_request{};
  strcpy(r.smt, "1");
  EXPECT_EQ(pin_check_enforced(&c, &r, err, sizeof err), -1);
  ASSERT_EQ(parse(c, {"default=compact", "enforce=strategy,mem"}), 0);
  EXPECT_EQ(c.enforce, static_cast<unsigned>(PIN_ENFORCE_STRATEGY | PIN_ENFORCE_MEM));
  r = pin_request{};
  strcpy(r.granularity, "numa");
  EXPECT_EQ(pin_check_enforced(&c, &r, err, sizeof err), 0);
  EXPECT_STREQ(pin_effective_granularity(&c, &r, nullptr), "numa");
  strcpy(r.mem, "interleave");
  EXPECT_EQ(pin_check_enforced(&c, &r, err, sizeof err), -1);
  EXPECT_EQ(parse(c, {"enforce=colour"}, &e), -1);
  EXPECT_NE(e.find("'colour' is no setting"), std::string::npos);
  EXPECT_EQ(parse(c, {"enforce="}, &e), -1);
}

TEST(PolicyDecision, OnlyTheLastPartOfAdminCommentCounts) {
  char out[512];
  pin_policy_from_comment("slurm-pin: rule=a mode=default strategy=lpgp", out, sizeof out);
  EXPECT_STREQ(out, "slurm-pin: rule=a mode=default strategy=lpgp");
  pin_policy_from_comment("note | slurm-pin: rule=a mode=enforce strategy=compact ", out, sizeof out);
  EXPECT_STREQ(out, "slurm-pin: rule=a mode=enforce strategy=compact");
  // Another writer's text in front, or behind: never the decision.
  pin_policy_from_comment("user note: slurm-pin: rule=evil mode=enforce strategy=none | slurm-pin: rule=a mode=default",
                          out, sizeof out);
  EXPECT_STREQ(out, "slurm-pin: rule=a mode=default");
  pin_policy_from_comment("slurm-pin: rule=a mode=enforce strategy=compact | later note", out, sizeof out);
  EXPECT_STREQ(out, "");
  pin_policy_from_comment("user note: slurm-pin: rule=evil mode=enforce strategy=none", out, sizeof out);
  EXPECT_STREQ(out, "");
  pin_policy_from_comment(nullptr, out, sizeof out);
  EXPECT_STREQ(out, "");
}

extern "C" {
#include "launcher_step.h"
#include "name_list.h"
#include "preload_list.h"
#include "stderr_line.h"
}

TEST(LauncherStep, DaemonsAreKnownByTheirProgramsFileName) {
  char name[64];
  EXPECT_TRUE(launcher_named(PIN_LAUNCHERS, "/usr/bin/orted", name, sizeof name));
  EXPECT_STREQ(name, "orted");
  EXPECT_TRUE(launcher_named(PIN_LAUNCHERS, "hydra_pmi_proxy", name, sizeof name));
  EXPECT_FALSE(launcher_named(PIN_LAUNCHERS, "/usr/bin/orte", name, sizeof name));
  EXPECT_FALSE(launcher_named(PIN_LAUNCHERS, "./app", name, sizeof name));
  EXPECT_FALSE(launcher_named("none", "orted", name, sizeof name));
  EXPECT_TRUE(launcher_named("mpispawn,orted", "mpispawn", name, sizeof name));
  // The list as the runtime asks it (common/name_list.h): whole names only.
  EXPECT_STREQ(name_in_list("orted,prted", "/usr/bin/prted"), "prted");
  EXPECT_EQ(name_in_list("orted,prted", "prte"), nullptr);
  EXPECT_EQ(name_in_list("orted,prted", "/usr/bin/"), nullptr);
  EXPECT_EQ(name_in_list("orted,,prted", ""), nullptr);
  EXPECT_EQ(name_in_list("none", "none"), nullptr);
  pin_config c;
  std::string e;
  EXPECT_EQ(parse(c, {"launchers=a,b;c"}, &e), -1);
  ASSERT_EQ(parse(c, {"launchers=none"}), 0);
  EXPECT_STREQ(c.launchers, "none");
}

// A daemon is known by its name and by where it is: root's alone, as the
// task's PATH finds it (hostile hole: `cp app orted` escaped enforce).
TEST(LauncherStep, ADaemonIsAProgramRootsAloneWherePathFindsIt) {
  char why[512];
  EXPECT_EQ(launcher_program_trusted("sh", "/usr/bin:/bin", why, sizeof why), 1) << why;
  EXPECT_EQ(launcher_program_trusted("/bin/sh", "", why, sizeof why), 1) << why;  // through /bin -> usr/bin
  EXPECT_EQ(launcher_program_trusted("./sh", "/usr/bin", why, sizeof why), 0);
  EXPECT_EQ(launcher_program_trusted("sh", "bin:/usr/bin", why, sizeof why), 0);  // the task's own directory first
  EXPECT_NE(std::string(why).find("relative"), std::string::npos) << why;
  EXPECT_EQ(launcher_program_trusted("sh", "::/usr/bin", why, sizeof why), 0);
  // A directory anyone may write to, searched first: a user could put an
  // "sh" there before the step starts.
  EXPECT_EQ(launcher_program_trusted("sh", "/tmp:/usr/bin", why, sizeof why), 0);
  EXPECT_NE(std::string(why).find("/tmp is writable by group or others"), std::string::npos) << why;
  EXPECT_EQ(launcher_program_trusted("no-such-program-here", "/usr/bin", why, sizeof why), 0);
  EXPECT_EQ(launcher_program_trusted("sh", "/nonexistent:/usr/bin", why, sizeof why), 1) << why;
  if (geteuid() == 0) {
    // A user's copy, however named, wherever it is.
    char dir[] = "/run/slurm-pin-launcher.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    chmod(dir, 0755);
    std::string own = std::string(dir) + "/orted";
    FILE* f = fopen(own.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fclose(f);
    chmod(own.c_str(), 0755);
    EXPECT_EQ(launcher_program_trusted("orted", dir, why, sizeof why), 1) << why;
    ASSERT_EQ(chown(own.c_str(), 65534, 65534), 0);
    EXPECT_EQ(launcher_program_trusted("orted", dir, why, sizeof why), 0);
    EXPECT_NE(std::string(why).find("is not owned by root"), std::string::npos) << why;
    ASSERT_EQ(chown(own.c_str(), 0, 0), 0);
    chmod(own.c_str(), 0775);
    EXPECT_EQ(launcher_program_trusted(own.c_str(), "", why, sizeof why), 0);
    // A link root left in a root-only directory, to a program in a user's.
    std::string user = std::string(dir) + "/user", link = std::string(dir) + "/link";
    ASSERT_EQ(mkdir(user.c_str(), 0755), 0);
    ASSERT_EQ(chown(user.c_str(), 65534, 65534), 0);
    ASSERT_EQ(symlink("user/../orted", link.c_str()), 0);
    chmod(own.c_str(), 0755);
    EXPECT_EQ(launcher_program_trusted(link.c_str(), "", why, sizeof why), 0);
    EXPECT_NE(std::string(why).find("/user is not owned by root"), std::string::npos) << why;
    unlink(link.c_str());
    ASSERT_EQ(symlink(("../" + std::string(dir).substr(5) + "/orted").c_str(), link.c_str()), 0);  // up and back
    EXPECT_EQ(launcher_program_trusted(link.c_str(), "", why, sizeof why), 1) << why;
    unlink(link.c_str());
    rmdir(user.c_str());
    unlink(own.c_str());
    rmdir(dir);
  }
}

TEST(LauncherStep, TheRanksRequestCarriesTheSettingsInForceAndTheSites) {
  pin_config c;
  ASSERT_EQ(parse(c, {"store=/var/lib/p s", "legacy_omp_env", "max_time=2"}), 0);
  pin_request r{};
  strcpy(r.strategy, "lpgp");
  r.strategy_set = 1;
  strcpy(r.profile, "app@2");
  strcpy(r.threads, "env");
  r.verbose = 1;
  rank_request rr = {&r, &c, "/run/slurm-pin/topology.xml", "slurm-pin: rule=a mode=default", "policy rule a",
                     "orted", "n1", "a", "default", "compact"};
  char out[4096];
  ASSERT_EQ(launcher_rank_options(&rr, out, sizeof out), 0);
  EXPECT_STREQ(out,
               "strategy=lpgp profile=app@2 threads=env flags=verbose store=/var/lib/p%20s "
               "cache=/run/slurm-pin/topology.xml decision=slurm-pin:%20rule%3Da%20mode%3Ddefault "
               "origin=policy%20rule%20a launcher=orted "
               "launchers=orted,prted,hydra_pmi_proxy,hydra_bstrap_proxy,pmi_proxy,mpispawn "
               "node=n1 rule=a rule_mode=default fallback=compact legacy=1 max_file=16777216 max_time=2");
  EXPECT_EQ(launcher_rank_options(&rr, out, 40), -1);
}

TEST(PreloadList, TheRuntimeLeavesLdPreloadAndNothingElse) {
  char out[256];
  EXPECT_EQ(preload_without_runtime("/a/libx.so /b/libslurm_pin_threads.so:liby.so", out, sizeof out), 1);
  EXPECT_STREQ(out, "/a/libx.so liby.so");
  EXPECT_EQ(preload_without_runtime("libslurm_pin_threads.so.bak", out, sizeof out), 0);
  EXPECT_STREQ(out, "libslurm_pin_threads.so.bak");
  EXPECT_EQ(preload_without_runtime("/x/libslurm_pin_threads.so", out, sizeof out), 1);
  EXPECT_STREQ(out, "");
  EXPECT_EQ(preload_without_runtime("/very/long/libx.so", out, 4), -1);
}

// The one word test of LD_PRELOAD's list, the engine's (appending the
// thread library) and the plugin's step plan's alike.
TEST(PreloadList, AWordIsInTheListOnlyWhole) {
  EXPECT_EQ(preload_has_word("/a/libx.so /lib/rt.so:liby.so", "/lib/rt.so"), 1);
  EXPECT_EQ(preload_has_word("/lib/rt.so", "/lib/rt.so"), 1);
  EXPECT_EQ(preload_has_word("/lib/rt.so.1 x/lib/rt.so", "/lib/rt.so"), 0);
  EXPECT_EQ(preload_has_word("/lib/rt.so.1 /lib/rt.so", "/lib/rt.so"), 1);  // a later occurrence counts
  EXPECT_EQ(preload_has_word("a b c", "b c"), 1);  // bounded on both sides, as the engine always read it
  EXPECT_EQ(preload_has_word("", "/lib/rt.so"), 0);
  EXPECT_EQ(preload_has_word("abc", ""), 0);  // never loops on an empty word
}

// What stderr_line wrote, read from a pipe in one read(2): one write per line.
static std::string one_read_of(void (*say)()) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  int saved = dup(STDERR_FILENO);
  dup2(fds[1], STDERR_FILENO);
  say();
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(fds[1]);
  std::string got(8192, '\0');
  ssize_t n = read(fds[0], &got[0], got.size());
  close(fds[0]);
  got.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return got;
}

TEST(StderrLine, OneLineInOneWriteEndingInANewline) {
  // 1000 bytes: glibc 2.37+ fprintf on an unbuffered stderr writes 128 at a time.
  EXPECT_EQ(one_read_of([] { stderr_line("slurm-pin: %s", std::string(1000, 'x').c_str()); }),
            "slurm-pin: " + std::string(1000, 'x') + "\n");
  EXPECT_EQ(one_read_of([] { stderr_line("a line %d\n", 7); }), "a line 7\n");
  std::string cut = one_read_of([] { stderr_line("%s", std::string(10000, 'y').c_str()); });
  EXPECT_EQ(cut.size(), 4095u);
  EXPECT_EQ(cut.substr(cut.size() - 4), "...\n");
}
