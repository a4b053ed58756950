// JAX parity: every case of tests/jax/goldens/<topic>.scn is called on its golden inputs on every
// backend of the build and must give JAX's outputs (tests/jax/README.md). The goldens are written
// by tests/jax/regen.py with JAX; this test needs no JAX.
#include <gtest/gtest.h>

#include "jit/lowp.hpp"
#include "test_backends.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "lang/npz.hpp"
#include "scn/scn.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kGoldens = fs::path(SCN_SOURCE_DIR) / "tests" / "jax" / "goldens";

std::string readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// One `# case NAME inputs=N outputs=M rtol=R atol=A` line of a golden .scn file.
struct ParityCase {
  std::string name;
  int inputs = 0, outputs = 0;
  double rtol = 0, atol = 0;
};

std::vector<ParityCase> readCases(const fs::path& scnFile) {
  std::vector<ParityCase> cases;
  std::istringstream lines(readBytes(scnFile));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# case ", 0) != 0) continue;
    ParityCase c;
    std::istringstream fields(line.substr(7));
    fields >> c.name;
    for (std::string kv; fields >> kv;) {
      const std::string key = kv.substr(0, kv.find('=')), value = kv.substr(kv.find('=') + 1);
      if (key == "inputs") c.inputs = std::stoi(value);
      if (key == "outputs") c.outputs = std::stoi(value);
      if (key == "rtol") c.rtol = std::stod(value);
      if (key == "atol") c.atol = std::stod(value);
    }
    cases.push_back(c);
  }
  return cases;
}

scn::DataType publicType(scn::DType t) {
  switch (t) {
    case scn::DType::Bool: return scn::DataType::Bool;
    case scn::DType::I32: return scn::DataType::I32;
    case scn::DType::I64: return scn::DataType::I64;
    case scn::DType::U32: return scn::DataType::U32;
    case scn::DType::U64: return scn::DataType::U64;
    case scn::DType::F32: return scn::DataType::F32;
    case scn::DType::F64: return scn::DataType::F64;
    case scn::DType::C64: return scn::DataType::C64;
    case scn::DType::C128: return scn::DataType::C128;
    case scn::DType::BF16: return scn::DataType::BF16;
    case scn::DType::F16: return scn::DataType::F16;
  }
  return scn::DataType::F32;
}

/// Element i of a result as a double (exact for the integers the goldens hold); of a complex
/// result, part i (the real part of element i / 2 for even i, else its imaginary part).
double elementOf(const scn::HostArray& a, int64_t i) {
  switch (a.dtype()) {
    case scn::DataType::C64: return a.dataAs<float>()[i];
    case scn::DataType::C128: return a.dataAs<double>()[i];
    case scn::DataType::Bool: return a.dataAs<bool>()[i];
    case scn::DataType::I32: return a.dataAs<int32_t>()[i];
    case scn::DataType::I64: return static_cast<double>(a.dataAs<int64_t>()[i]);
    case scn::DataType::U32: return a.dataAs<uint32_t>()[i];
    case scn::DataType::U64: return static_cast<double>(a.dataAs<uint64_t>()[i]);
    case scn::DataType::F32: return a.dataAs<float>()[i];
    case scn::DataType::F64: return a.dataAs<double>()[i];
    case scn::DataType::BF16: return scn::lowp::bf16ToF32(a.dataAs<uint16_t>()[i]);
    case scn::DataType::F16: return scn::lowp::f16ToF32(a.dataAs<uint16_t>()[i]);
  }
  return 0;
}

/// Whether `got` is `want` within the tolerance: NaN matches NaN, infinities match in sign.
bool close(double got, double want, double rtol, double atol) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

/// Compares one output; a failure names the case, the output and the first differing elements.
void expectSame(const std::string& where, const scn::HostArray& got, const scn::Array& want, const ParityCase& c) {
  ASSERT_EQ(static_cast<int>(got.dtype()), static_cast<int>(publicType(want.dtype)))
      << where << ": dtype differs from JAX's " << scn::dtypeName(want.dtype);
  ASSERT_EQ(got.shape(), std::vector<int64_t>(want.shape.begin(), want.shape.end())) << where << ": shape differs";
  const bool exact = !scn::isFloat(want.dtype) && !scn::isComplex(want.dtype);
  const int64_t parts = scn::isComplex(want.dtype) ? 2 : 1;  // a complex element: re, im
  auto wantPart = [&](int64_t i) {
    if (want.dtype == scn::DType::C64) return double(want.data<float>()[i]);
    if (want.dtype == scn::DType::C128) return want.data<double>()[i];
    return want.getDouble(i);
  };
  int reported = 0;
  for (int64_t i = 0; i < got.size() * parts && reported < 5; ++i) {
    const double g = elementOf(got, i), w = wantPart(i);
    if (exact ? g == w : close(g, w, c.rtol, c.atol)) continue;
    ADD_FAILURE() << where << ": element " << i << " is " << g << ", JAX gives " << w << " (rtol " << c.rtol
                  << ", atol " << c.atol << ")";
    ++reported;
  }
}

struct ParityParam {
  std::string topic, backend;
};

std::vector<ParityParam> allParams() {
  std::vector<ParityParam> params;
  std::vector<std::string> topics;
  if (fs::exists(kGoldens))
    for (const auto& e : fs::directory_iterator(kGoldens))
      if (e.path().extension() == ".scn") topics.push_back(e.path().stem().string());
  std::sort(topics.begin(), topics.end());
  for (const std::string& t : topics)
    for (const std::string& b : scn::test::builtBackends({"cpu", "interp", "cuda-emu"})) params.push_back({t, b});
  return params;
}

class JaxParity : public ::testing::TestWithParam<ParityParam> {};

TEST_P(JaxParity, MatchesTheGoldens) {
  const ParityParam& p = GetParam();
  const fs::path scnFile = kGoldens / (p.topic + ".scn"), npzFile = kGoldens / (p.topic + ".npz");
  std::map<std::string, scn::Array> golden;
  for (scn::NamedArray& a : scn::decodeNpz(readBytes(npzFile), npzFile.string(), scn::Span{}))
    golden.emplace(a.name, std::move(a.array));

  scn::ContextOptions options;
  options.backend = p.backend;
  auto ctx = scn::Context::create(options);
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  ASSERT_TRUE(ctx.value().loadFile(scnFile.string()).ok()) << ctx.value().lastError();

  const std::vector<ParityCase> cases = readCases(scnFile);
  ASSERT_FALSE(cases.empty()) << scnFile << " has no `# case` line";
  for (const ParityCase& c : cases) {
    std::vector<scn::ArrayView> inputs;
    for (int i = 0; i < c.inputs; ++i) {
      const scn::Array& a = golden.at(c.name + ".in" + std::to_string(i));
      inputs.emplace_back(publicType(a.dtype), std::vector<int64_t>(a.shape.begin(), a.shape.end()), a.raw());
    }
    auto out = ctx.value().call(c.name, inputs);
    if (!out.ok()) {
      ADD_FAILURE() << p.topic << "/" << c.name << " on " << p.backend << ": " << ctx.value().lastError();
      continue;
    }
    ASSERT_EQ(static_cast<int>(out.value().size()), c.outputs) << p.topic << "/" << c.name << ": number of outputs";
    for (int i = 0; i < c.outputs; ++i)
      expectSame(p.topic + "/" + c.name + " on " + p.backend + ", output " + std::to_string(i), out.value()[i],
                 golden.at(c.name + ".out" + std::to_string(i)), c);
  }
}

INSTANTIATE_TEST_SUITE_P(Goldens, JaxParity, ::testing::ValuesIn(allParams()),
                         [](const ::testing::TestParamInfo<ParityParam>& info) {
                           std::string name = info.param.topic + "_" + info.param.backend;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(JaxParity);

}  // namespace
