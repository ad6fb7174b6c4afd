// SPDX-License-Identifier: GPL-2.0-or-later
// plugstack.conf read as Slurm reads it, within fixed bounds
// (common/plugstack_conf.h): the doctor's and slurmctld's one reader.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "plugstack_conf.h"
#include "test_support.hh"

namespace {

namespace fs = std::filesystem;

struct Dir : slurmpin::test::TempDir {
  Dir() : TempDir("plugstack_conf") {}
};

// Each line as "FILE:N WORD WORD...", each problem as "FILE:N ! PHRASE"
// (FILE relative to the directory).
struct Read {
  std::string base;
  std::vector<std::string> lines, problems;
  int rc = 0;
  Read(const Dir& d, const std::string& file) : base(d.path.string() + "/") {
    rc = plugstack_conf_read(file.c_str(), visit, this);
  }
  std::string where(const plugstack_line* l) const {
    std::string f = l->file;
    return (f.rfind(base, 0) == 0 ? f.substr(base.size()) : f) + ":" + std::to_string(l->number);
  }
  static int visit(void* ctx, const plugstack_line* l, const char* problem) {
    auto* r = static_cast<Read*>(ctx);
    std::string s = r->where(l);
    if (problem) {
      r->problems.push_back(s + " ! " + problem);
      return 0;
    }
    for (int i = 0; i < l->argc; ++i) s += " " + std::string(l->argv[i]);
    r->lines.push_back(s);
    return 0;
  }
};

TEST(PlugstackConf, LinesAndIncludesInSlurmsOrderCommentsLeftOut) {
  Dir d;
  d.write("conf.d/20-b.conf", "optional b.so\n");
  d.write("conf.d/10-a.conf", "optional a.so x=1 # a comment\n");
  std::string f = d.write("plugstack.conf", "# site\nrequired first.so\ninclude conf.d/*.conf\n\nrequired last.so\n");
  Read r(d, f);
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.lines, (std::vector<std::string>{"plugstack.conf:2 required first.so",
                                               "conf.d/10-a.conf:1 optional a.so x=1", "conf.d/20-b.conf:1 optional b.so",
                                               "plugstack.conf:5 required last.so"}));
  EXPECT_TRUE(r.problems.empty());
}

TEST(PlugstackConf, AnIncludeLoopThroughAGlobReadsEachFileOnce) {
  // Before: the doctor followed this until its depth bound at every fan-out
  // (117,600 lines of output in 30 s); the store lookup two levels deep.
  Dir d;
  d.write("conf.d/a.conf", "include *\noptional a.so\n");
  d.write("conf.d/b.conf", "include ../plugstack.conf\noptional b.so\n");
  std::string f = d.write("plugstack.conf", "include conf.d/*\n");
  auto t = std::chrono::steady_clock::now();
  Read r(d, f);
  EXPECT_LT(std::chrono::steady_clock::now() - t, std::chrono::seconds(1));
  EXPECT_EQ(r.lines, (std::vector<std::string>{"conf.d/b.conf:2 optional b.so", "conf.d/a.conf:2 optional a.so"}));
  ASSERT_EQ(r.problems.size(), 3u);  // a.conf again (from itself), b.conf again, plugstack.conf again
  for (const std::string& p : r.problems) EXPECT_NE(p.find("included a second time"), std::string::npos) << p;
}

TEST(PlugstackConf, FanOutAndDepthAreBounded) {
  Dir d;
  for (int i = 0; i < 100; ++i) d.write("many/" + std::to_string(1000 + i) + ".conf", "optional x.so\n");
  std::string f = d.write("plugstack.conf", "include many/*.conf\n");
  Read r(d, f);
  EXPECT_EQ(r.lines.size(), PLUGSTACK_MAX_FILES - 1u);
  ASSERT_EQ(r.problems.size(), 100u - (PLUGSTACK_MAX_FILES - 1u));
  EXPECT_NE(r.problems[0].find("more than 64 files included"), std::string::npos) << r.problems[0];
  // A chain deeper than the bound: read to the bound, then one problem.
  for (int i = 0; i < 12; ++i) d.write("deep/" + std::to_string(i) + ".conf", "include " + std::to_string(i + 1) + ".conf\n");
  Read deep(d, (d.path / "deep/0.conf").string());
  ASSERT_EQ(deep.problems.size(), 1u);
  EXPECT_EQ(deep.problems[0], "deep/8.conf:1 ! includes nest more than 8 deep: not read further");
}

TEST(PlugstackConf, NoFileOrLineCanStallOrFloodTheReader) {
  Dir d;
  ASSERT_EQ(mkfifo((d.path / "fifo.conf").c_str(), 0644), 0);
  std::string huge(PLUGSTACK_MAX_LINE + 10, 'x'), args = "required a.so";
  for (int i = 0; i < PLUGSTACK_MAX_ARGS + 1; ++i) args += " a=" + std::to_string(i);
  std::string f = d.write("plugstack.conf", "include fifo.conf\n" + huge + "\n" + args + "\nrequired ok.so\n");
  Read r(d, f);
  EXPECT_EQ(r.lines, std::vector<std::string>{"plugstack.conf:4 required ok.so"});
  ASSERT_EQ(r.problems.size(), 3u);
  EXPECT_NE(r.problems[0].find("fifo.conf: cannot read it: not a regular file"), std::string::npos) << r.problems[0];
  EXPECT_EQ(r.problems[1], "plugstack.conf:2 ! longer than 64 KiB: not a plugstack line");
  EXPECT_NE(r.problems[2].find("more than 128 arguments"), std::string::npos);
  Read missing(d, (d.path / "missing.conf").string());
  EXPECT_EQ(missing.rc, -1);
  ASSERT_EQ(missing.problems.size(), 1u);
  EXPECT_NE(missing.problems[0].find("cannot read it"), std::string::npos);
}

}  // namespace
