// The command reader, the number in a source's answer, and credentials.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "../temp_dir.h"
#include "power/credentials.h"
#include "power/reader.h"

using namespace bert::power;

TEST_CASE("the first number of an answer is its watts") {
  CHECK(*first_number("123.5\n") == 123.5);
  CHECK(*first_number("Pwr Consumption  | 500") == 500);
  CHECK(*first_number("  2090 W") == 2090);
  CHECK(*first_number("1.5e3") == 1500);
  CHECK_FALSE(first_number("no reading"));
}

TEST_CASE("the command reader: a number, a failing command, a silent one") {
  MonitorConfig c;
  c.interval_s = 0.1;
  c.command = "echo 123.5";
  CHECK(*make_command_reader(c)->read().watts == 123.5);
  c.command = "echo oops; exit 3";
  Reading r = make_command_reader(c)->read();
  CHECK_FALSE(r.watts);
  CHECK(r.error.find("exit code 3") != std::string::npos);
  CHECK(r.error.find("oops") != std::string::npos);
  c.command = "echo watts";
  CHECK(make_command_reader(c)->read().error.find("no number of watts") != std::string::npos);
  c.command = "sleep 30";
  const auto t0 = std::chrono::steady_clock::now();
  r = make_command_reader(c)->read();
  CHECK_FALSE(r.watts);
  CHECK(r.error.find("no answer within the deadline") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
}

TEST_CASE("a BMC reader needs the node's BMC; NVML is refused where there is none") {
  MonitorConfig c;
  c.source = Source::Redfish;
  c.hosts = {"n1"};
  c.bmcs = {""};
  CHECK_THROWS_WITH(make_reader(c, 0), doctest::Contains("no BMC address for node 0 (n1)"));
  c.source = Source::Nvml;
  if (!std::getenv("BERT_TEST_HAVE_NVML")) CHECK_THROWS_WITH(make_reader(c, 0), doctest::Contains("NVML"));
}

TEST_CASE("credentials: a file only its owner reads, or the environment; never their values in a message") {
  TempDir t;
  const std::string f = t.write("bmc.yaml", "username: admin\npassword: hunter2\n");
  ::chmod(f.c_str(), 0644);
  CHECK(credentials_file_problem(f).find("chmod 600") != std::string::npos);
  CHECK_THROWS(load_credentials(f));
  ::chmod(f.c_str(), 0600);
  const Credentials c = load_credentials(f);
  CHECK(c.username == "admin");
  CHECK(c.password == "hunter2");
  const std::string bad = t.write("bad.yaml", "user: admin\n");
  ::chmod(bad.c_str(), 0600);
  try {
    load_credentials(bad);
    FAIL("no error");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("username: and password:") != std::string::npos);
  }
  ::unsetenv(kUsernameEnv);
  CHECK_THROWS_WITH(load_credentials(""), doctest::Contains("$BMC_USERNAME"));
  ::setenv(kUsernameEnv, "u", 1);
  ::setenv(kPasswordEnv, "p", 1);
  CHECK(load_credentials("").password == "p");
  ::unsetenv(kUsernameEnv);
  ::unsetenv(kPasswordEnv);
}

TEST_CASE("ipmi over lanplus: DCMI's answer read, the password only in ipmitool's environment") {
  TempDir t;
  // a stand-in ipmitool that records its argv and IPMI_PASSWORD and answers as a DCMI BMC does
  const std::string tool = t.write("ipmitool", "#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/argv\"\n"
                                               "echo \"$IPMI_PASSWORD\" > \"$(dirname \"$0\")/password\"\n"
                                               "printf '\\n    Instantaneous power reading:                   512 Watts\\n"
                                               "    Minimum during sampling period:                 20 Watts\\n'\n");
  ::chmod(tool.c_str(), 0755);
  const std::string cred = t.write("bmc.yaml", "username: admin\npassword: hunter2\n");
  ::chmod(cred.c_str(), 0600);
  MonitorConfig c;
  c.source = Source::Ipmi;
  c.ipmitool = tool;
  c.ipmi_cipher_suite = 3;
  c.credentials_file = cred;
  c.hosts = {"n1"};
  c.bmcs = {"10.1.2.3:6230"};
  const Reading r = make_reader(c, 0)->read();
  REQUIRE(r.watts);
  CHECK(*r.watts == 512);
  std::ifstream argv(t.file("argv")), password(t.file("password"));
  std::string a, p;
  std::getline(argv, a);
  std::getline(password, p);
  CHECK(a == "-I lanplus -H 10.1.2.3 -p 6230 -U admin -E -N 1 -R 1 -C 3 dcmi power reading");
  CHECK(a.find("hunter2") == std::string::npos);
  CHECK(p == "hunter2");
}
