//===- ExportVHDL.cpp - rtl designs to VHDL-2008 --------------------------===//
//
// Every stage is a streaming entity with valid/ready on both sides, so the
// top level only wires stages in a chain. The datapath of a mac unit:
//
//   window buffer --(counters: pos, blk, tap, ich)--> P lanes:
//     x = buffer(window) or pad, w = ROM(addr)(lane)
//     stage 1: prod(j) <= x * w                       (multiplier register)
//     stage 2: acc(j) <= acc(j) + prod(j); at the end of a dot product the
//              requantizer writes round/saturate(acc + bias) into the row
//              and a finished row into the output register.
//
// A new MAC issues every cycle as soon as the input rows its output position
// needs have arrived, so the layer computes while its input streams in.
//
//===----------------------------------------------------------------------===//
#include "LegalizeNames.h"
#include "Template.h"
#include "Timing.h"
#include "unum/Dialect/NN/IR/FixedPoint.h"
#include "unum/Dialect/NN/IR/NNDialect.h"
#include "unum/Dialect/RTL/IR/RTLDialect.h"
#include "unum/Target/TranslateDiagnostics.h"
#include "unum/Target/UnumConfig/UnumConfig.h"
#include "unum/Target/VHDL/VHDL.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using namespace unum;
using namespace unum::rtl;
namespace fixed = unum::nn::fixed;

namespace {
using Files = std::vector<std::pair<std::string, std::string>>;

/// A VHDL aggregate of integers; a single element needs named association.
std::string aggregate(ArrayRef<int64_t> values) {
  if (values.size() == 1)
    return "(0 => " + std::to_string(values[0]) + ")";
  return "(" +
         llvm::join(llvm::map_range(
                        values, [](int64_t v) { return std::to_string(v); }),
                    ", ") +
         ")";
}

/// The VHDL package's code of a rounding mode.
int roundingCode(std::optional<StringRef> name) {
  fixed::Rounding r = fixed::Rounding::Nearest;
  if (name)
    fixed::parseRounding(name->str(), r);
  return r == fixed::Rounding::Truncate
             ? 0
             : (r == fixed::Rounding::Nearest ? 1 : 2);
}

std::vector<int64_t> integersOf(ElementsAttr attr) {
  std::vector<int64_t> out;
  for (APInt v : attr.getValues<APInt>())
    out.push_back(v.getSExtValue());
  return out;
}

const char *header = "library ieee;\n"
                     "use ieee.std_logic_1164.all;\n"
                     "use ieee.numeric_std.all;\n";

/// The entity every stage has (the streaming ports) and the opening of its
/// architecture.
const char *stageEntityTemplate = R"(
-- {comment}
entity {entity} is
  port (
    clk       : in  std_logic;
    rst       : in  std_logic;
    in_valid  : in  std_logic;
    in_ready  : out std_logic;
    in_data   : in  sample_vector(0 to {in_last});
    out_valid : out std_logic;
    out_ready : in  std_logic;
    out_data  : out sample_vector(0 to {out_last}));
end entity;

architecture rtl of {entity} is
)";

std::string stageEntity(StringRef entity, const Twine &comment, int64_t inWidth,
                        int64_t outWidth) {
  return vhdl::expand(stageEntityTemplate, {{"comment", comment.str()},
                                            {"entity", entity.str()},
                                            {"in_last", inWidth - 1},
                                            {"out_last", outWidth - 1}});
}

/// A mac unit's architecture body (docs in the file header); the fields
/// come from MacSchedule.
const char *macTemplate = R"(  constant IN_W      : natural := {in_w};
  constant IN_BEATS  : natural := {in_beats};
  constant ELEMS     : natural := {elems};
  constant IN_LEN    : integer := {in_len};
  constant IN_CH     : natural := {in_ch};
  constant OUT_LEN   : natural := {out_len};
  constant OUT_CH    : natural := {out_ch};
  constant PO        : natural := {po}; -- output lanes
  constant PR        : natural := {pr}; -- reduction lanes (adder tree inputs)
  constant BLOCKS    : natural := {blocks};
  constant STEPS     : natural := {steps};
  constant STRIDE    : natural := {stride};
  constant PAD_LO    : natural := {pad_lo};
  constant PAD_VALUE : integer := {pad_value};
  constant ACC_BITS  : natural := {acc_bits};
  constant SHIFT     : natural := {shift};
  constant ROUNDING  : natural := {rounding}; -- 0 truncate, 1 nearest, 2 half_even
  constant DEPTH     : natural := BLOCKS * STEPS;
  constant TREE_LEVELS : natural := {tree_levels}; -- ceil(log2(PR))
  constant ROWS      : natural := {rows}; -- window buffer rows (beats) per bank
  constant ROWS2     : natural := {rows2}; -- a power of two >= ROWS
  constant CAP       : natural := ROWS * IN_W; -- elements per bank
  -- IN_W = IN_CH: a row is an input position, so every output lane reads
  -- the same row for a term: one read port per reduction lane
  constant ROW_LANES : boolean := {shared};
  constant PORTS     : natural := {ports};

  -- weight ROM: address blk * STEPS + step, column o * PR + r
  type rom_t is array (0 to DEPTH - 1) of sample_vector(0 to PO * PR - 1);
  constant ROM : rom_t := (
{rom_rows});
  -- first input channel of each output lane's group (-1: idle lane)
  constant LANE_BASE : int_vector(0 to BLOCKS * PO - 1) := {lane_base};
  constant BIAS : int_vector(0 to BLOCKS * PO - 1) := {bias};
  -- kernel tap and group channel of term step * PR + r (-1: padding term)
  constant TERM_TAP : int_vector(0 to STEPS * PR - 1) := {term_tap};
  constant TERM_CH : int_vector(0 to STEPS * PR - 1) := {term_ch};
  constant KERNEL    : natural := {kernel};
  constant WRAP      : boolean := {wrap};
  constant OUT_BITS  : natural := {out_bits}; -- the result format's

  type acc_vector is array (natural range <>) of signed(ACC_BITS - 1 downto 0);
  type prod_vector is array (natural range <>) of
    signed(2 * DATA_BITS - 1 downto 0);
  subtype row_t is sample_vector(0 to IN_W - 1);
  type row_vector is array (natural range <>) of row_t;
  -- (at least one bit: GHDL 2.0's --synth fails on a zero-bit index)
  subtype col_t is natural range 0 to maximum(IN_W - 1, 1);
  type col_vector is array (natural range <>) of col_t;
  -- what a multiplier lane multiplies: 0 zero (idle lane or term), 1 the
  -- padding value, 2 the buffer
  type kind_vector is array (natural range <>) of natural range 0 to 2;
  -- first input position of window l (negative inside the padding)
  subtype lo_t is integer range -PAD_LO to OUT_LEN * STRIDE;

  -- Window buffer: two banks of ROWS rows of one input beat each (one
  -- write port, PORTS registered read ports: block RAM where the tools
  -- have it); while the MACs read one inference's bank, the next inference
  -- streams into the other.
  type mem_t is array (0 to 2 * ROWS2 - 1) of row_t;
  signal mem       : mem_t;
  signal wbank     : natural range 0 to 1; -- the bank being loaded
  signal rbank     : natural range 0 to 1; -- the bank being read
  signal ahead     : std_logic; -- loading the inference after the read one
  signal beats_in  : natural range 0 to IN_BEATS;
  signal loaded    : natural range 0 to ELEMS;
  signal avail     : natural range 0 to ELEMS; -- of the inference read
  signal issued    : std_logic; -- every MAC of the read inference issued
  signal pos       : natural range 0 to OUT_LEN - 1;
  signal lo        : lo_t; -- pos * STRIDE - PAD_LO
  -- lo + OFF >= 0 (OFF a multiple of ROWS2) and the kernel tap of each
  -- reduction lane's term (0 for none), kept with the counters: the read
  -- address is one add
  constant OFF     : natural := ROWS2 * (PAD_LO / ROWS2 + 1);
  signal lo_off    : natural range 0 to OFF + OUT_LEN * STRIDE;
  type tap_vector is array (natural range <>) of natural range 0 to KERNEL;
  signal tap       : tap_vector(0 to PR - 1);
  signal tap_ok    : std_logic_vector(0 to PR - 1); -- a term, not padding
  -- need(pos) and first(pos) + CAP - IN_W (the last element a beat may end
  -- before), updated with the position from the unclamped (lo + KERNEL) *
  -- IN_CH and lo * IN_CH: an add and compares with constants per position
  signal need_r    : natural range 0 to ELEMS;
  signal limit_r   : natural range 0 to ELEMS + CAP;
  signal need_u    : integer range -(PAD_LO + 1) * IN_CH to
                                   (OUT_LEN * STRIDE + KERNEL) * IN_CH;
  signal first_u   : integer range -(PAD_LO + 1) * IN_CH to
                                   (OUT_LEN * STRIDE + KERNEL) * IN_CH;
  signal blk       : natural range 0 to BLOCKS - 1;
  signal step      : natural range 0 to STEPS - 1;
  signal addr      : natural range 0 to DEPTH - 1;
  -- stage 1: buffer rows and ROM row read
  signal m_valid, m_first, m_last, m_row_end : std_logic;
  signal m_blk     : natural range 0 to BLOCKS - 1;
  signal rdat      : row_vector(0 to PORTS - 1);
  signal wrow      : sample_vector(0 to PO * PR - 1);
  signal kind      : kind_vector(0 to PO * PR - 1);
  signal col       : col_vector(0 to PO * PR - 1);
  -- stage 2: products
  signal p_valid, p_first, p_last, p_row_end : std_logic;
  signal p_blk     : natural range 0 to BLOCKS - 1;
  signal prod      : prod_vector(0 to PO * PR - 1);
  -- stage 3: adder trees and accumulators (started from the bias)
  signal acc       : acc_vector(0 to PO - 1);
  signal q_valid, q_row_end : std_logic; -- a block's sums are in acc
  signal q_blk     : natural range 0 to BLOCKS - 1;
  -- stage 4: requantizer, output row
  signal row       : sample_vector(0 to BLOCKS * PO - 1);
  signal o_valid   : std_logic;
  signal o_data    : sample_vector(0 to OUT_CH - 1);
  signal stall     : std_logic;
  signal issue     : std_logic;
  signal accept    : std_logic;

  -- input elements needed before the window at lo can start: the rows up
  -- to the last one it reads inside the input (kept in a register that
  -- follows the position counter: no table that grows with the length)
  function need(l : lo_t) return natural is
    variable last : integer range -PAD_LO - 1 to OUT_LEN * STRIDE + KERNEL;
  begin
    last := l + KERNEL - 1;
    if last > IN_LEN - 1 then
      return ELEMS;
    elsif last < 0 then
      return 1; -- only padding: once the inference has begun
    end if;
    return (last + 1) * IN_CH;
  end function;

  -- first input element the window at lo reads (older ones may go)
  function first(l : lo_t) return natural is
  begin
    if l < 0 then
      return 0;
    elsif l >= IN_LEN then
      return ELEMS; -- only padding
    end if;
    return l * IN_CH;
  end function;

  -- the bank row of input beat b
  function row_of(b : natural) return natural is
  begin
    return {row_slot};
  end function;

  -- the kernel tap of term t, 0 for none
  function tap_of(t : natural) return natural is
  begin
    return maximum(TERM_TAP(t), 0);
  end function;

  -- '1' when term t is a term (not past the last one)
  function tap_is(t : natural) return std_logic is
  begin
    if TERM_TAP(t) < 0 then
      return '0';
    end if;
    return '1';
  end function;

  -- read port of output lane o, reduction lane r
  function port_of(o : natural; r : natural) return natural is
  begin
    if ROW_LANES then
      return r;
    end if;
    return o * PR + r;
  end function;

  -- balanced adder tree over the PR products of output lane o
  function tree_sum(v : prod_vector; o : natural) return signed is
    variable t : acc_vector(0 to PR - 1);
  begin
    for r in 0 to PR - 1 loop
      t(r) := resize(v(o * PR + r), ACC_BITS);
    end loop;
    for level in 0 to TREE_LEVELS - 1 loop
      for r in 0 to PR - 1 loop
        if r mod 2 ** (level + 1) = 0 and r + 2 ** level < PR then
          t(r) := t(r) + t(r + 2 ** level);
        end if;
      end loop;
    end loop;
    return t(0);
  end function;
begin
  ahead <= '1' when wbank /= rbank else '0';
  avail <= ELEMS when ahead = '1' else loaded;
  -- a beat may not overwrite what the current position still reads (the
  -- next inference's first position reads from element 0)
  accept <= '1' when beats_in < IN_BEATS and
                     ((ahead = '1' and loaded <= CAP - IN_W) or
                      (ahead = '0' and
                       (issued = '1' or loaded <= limit_r)))
            else '0';
  in_ready  <= accept;
  out_valid <= o_valid;
  out_data  <= o_data;
  -- a finished row waits while the output register is still full
  stall <= '1' when q_valid = '1' and q_row_end = '1' and o_valid = '1'
                    and out_ready = '0' else '0';
  issue <= '1' when issued = '0' and stall = '0' and avail >= need_r
           else '0';

  -- the window buffer's write port: one beat per handshake
  wr_port : process (clk)
  begin
    if rising_edge(clk) then
      if in_valid = '1' and accept = '1' then
        mem(wbank * ROWS2 + row_of(beats_in)) <= in_data;
      end if;
    end if;
  end process;

  -- its read ports and the ROM's: the rows of the terms issued
  rom_port : process (clk)
  begin
    if rising_edge(clk) then
      if stall = '0' then
        wrow <= ROM(addr);
      end if;
    end if;
  end process;

  -- a beat is an input position: row lo + tap per reduction lane (any row
  -- when it is padding: the lanes ignore it)
  lane_rows : if ROW_LANES generate
    rd_ports : process (clk)
    begin
      if rising_edge(clk) then
        if stall = '0' then
          for r in 0 to PR - 1 loop
            rdat(r) <= mem(rbank * ROWS2 + (lo_off + tap(r)) mod ROWS2);
          end loop;
        end if;
      end if;
    end process;
  end generate;

  -- otherwise the row of each multiplier's element
  element_rows : if not ROW_LANES generate
    rd_ports : process (clk)
      variable src : integer range -PAD_LO - KERNEL to OUT_LEN * STRIDE + KERNEL;
      variable e   : natural range 0 to ELEMS;
      variable b   : natural range 0 to IN_BEATS;
    begin
      if rising_edge(clk) then
        if stall = '0' then
          for r in 0 to PR - 1 loop
            src := lo + TERM_TAP(step * PR + r);
            for o in 0 to PO - 1 loop
              b := 0;
              if src >= 0 and src < IN_LEN and LANE_BASE(blk * PO + o) >= 0
                 and TERM_TAP(step * PR + r) >= 0 then
                e := src * IN_CH + LANE_BASE(blk * PO + o)
                     + TERM_CH(step * PR + r);
                b := e / IN_W;
              end if;
              rdat(port_of(o, r)) <= mem(rbank * ROWS2 + row_of(b));
            end loop;
          end loop;
        end if;
      end if;
    end process;
  end generate;

  process (clk)
    variable row_v : sample_vector(0 to BLOCKS * PO - 1);
    variable a     : signed(ACC_BITS - 1 downto 0);
    variable x     : sample_t;
    variable src   : integer range -PAD_LO - KERNEL to OUT_LEN * STRIDE + KERNEL;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        beats_in <= 0;
        loaded   <= 0;
        wbank    <= 0;
        rbank    <= 0;
        issued   <= '0';
        pos      <= 0;
        lo       <= -PAD_LO;
        lo_off   <= OFF - PAD_LO;
        for r in 0 to PR - 1 loop
          tap(r) <= tap_of(r);
          tap_ok(r) <= tap_is(r);
        end loop;
        need_u   <= (KERNEL - PAD_LO) * IN_CH;
        first_u  <= -PAD_LO * IN_CH;
        need_r   <= need(-PAD_LO);
        limit_r  <= first(-PAD_LO) + CAP - IN_W;
        blk      <= 0;
        step     <= 0;
        addr     <= 0;
        m_valid  <= '0';
        p_valid  <= '0';
        q_valid  <= '0';
        o_valid  <= '0';
      else
        -- window buffer counters; after an inference's last beat the next
        -- one goes to the other bank unless that bank is still read (then
        -- it waits for the read to move on)
        if in_valid = '1' and accept = '1' then
          if beats_in = IN_BEATS - 1 and ahead = '0' then
            beats_in <= 0;
            loaded   <= 0;
            wbank    <= 1 - wbank;
          else
            beats_in <= beats_in + 1;
            loaded   <= loaded + IN_W;
          end if;
        elsif beats_in = IN_BEATS and ahead = '0' then
          beats_in <= 0;
          loaded   <= 0;
          wbank    <= 1 - wbank;
        end if;
        -- every MAC of the read inference issued and the next one loading:
        -- read it
        if issued = '1' and ahead = '1' then
          issued <= '0';
          rbank  <= 1 - rbank;
        end if;
        if o_valid = '1' and out_ready = '1' then
          o_valid <= '0';
        end if;
        if stall = '0' then
          -- stage 4: requantizer
          if q_valid = '1' then
            row_v := row;
            for o in 0 to PO - 1 loop
              row_v(q_blk * PO + o) := requantize(acc(o), SHIFT, ROUNDING,
                                                  WRAP, OUT_BITS);
            end loop;
            row <= row_v;
            if q_row_end = '1' then
              o_data  <= row_v(0 to OUT_CH - 1);
              o_valid <= '1';
            end if;
          end if;
          -- stage 3: adder trees and accumulators, the first step of a
          -- block starting from its bias (the same sum modulo 2^ACC_BITS)
          q_valid <= p_valid and p_last;
          q_blk <= p_blk;
          q_row_end <= p_row_end;
          if p_valid = '1' then
            for o in 0 to PO - 1 loop
              if p_first = '1' then
                a := to_signed(BIAS(p_blk * PO + o), ACC_BITS);
              else
                a := acc(o);
              end if;
              acc(o) <= a + tree_sum(prod, o);
            end loop;
          end if;
          -- stage 2: PO * PR multipliers
          p_valid <= m_valid;
          p_blk <= m_blk;
          p_first <= m_first;
          p_last <= m_last;
          p_row_end <= m_row_end;
          if m_valid = '1' then
            for i in 0 to PO * PR - 1 loop
              if kind(i) = 0 then
                x := (others => '0');
              elsif kind(i) = 1 then
                x := to_signed(PAD_VALUE, DATA_BITS);
              else
                x := rdat(port_of(i / PR, i mod PR))(col(i));
              end if;
              prod(i) <= x * wrow(i);
            end loop;
          end if;
          -- stage 1: the buffer rows and the ROM row (process read), what
          -- each lane multiplies
          m_valid <= issue;
          if issue = '1' then
            for o in 0 to PO - 1 loop
              for r in 0 to PR - 1 loop
                src := lo + tap(r);
                col(o * PR + r) <= 0;
                if LANE_BASE(blk * PO + o) < 0 or tap_ok(r) = '0' then
                  kind(o * PR + r) <= 0;
                elsif src < 0 or src >= IN_LEN then
                  kind(o * PR + r) <= 1;
                else
                  kind(o * PR + r) <= 2;
                  if ROW_LANES then
                    col(o * PR + r) <= LANE_BASE(blk * PO + o)
                                       + TERM_CH(step * PR + r);
                  else
                    col(o * PR + r) <= (src * IN_CH + LANE_BASE(blk * PO + o)
                                        + TERM_CH(step * PR + r)) mod IN_W;
                  end if;
                end if;
              end loop;
            end loop;
            m_blk <= blk;
            if step = 0 then m_first <= '1'; else m_first <= '0'; end if;
            if step = STEPS - 1 then m_last <= '1'; else m_last <= '0'; end if;
            if step = STEPS - 1 and blk = BLOCKS - 1 then
              m_row_end <= '1';
            else
              m_row_end <= '0';
            end if;
            -- counters: step, then blk, then pos
            for r in 0 to PR - 1 loop
              if step < STEPS - 1 then
                tap(r) <= tap_of((step + 1) * PR + r);
                tap_ok(r) <= tap_is((step + 1) * PR + r);
              else
                tap(r) <= tap_of(r);
                tap_ok(r) <= tap_is(r);
              end if;
            end loop;
            if step < STEPS - 1 then
              step <= step + 1;
              addr <= addr + 1;
            elsif blk < BLOCKS - 1 then
              step <= 0;
              blk  <= blk + 1;
              addr <= addr + 1;
            else
              step <= 0;
              blk  <= 0;
              addr <= 0;
              if pos < OUT_LEN - 1 then
                -- the next window: lo + STRIDE
                pos     <= pos + 1;
                lo      <= lo + STRIDE;
                lo_off  <= lo_off + STRIDE;
                need_u  <= need_u + STRIDE * IN_CH;
                first_u <= first_u + STRIDE * IN_CH;
                if lo > IN_LEN - KERNEL - STRIDE then
                  need_r <= ELEMS;
                elsif lo < 1 - KERNEL - STRIDE then
                  need_r <= 1;
                else
                  need_r <= need_u + STRIDE * IN_CH;
                end if;
                if lo < -STRIDE then
                  limit_r <= CAP - IN_W;
                elsif lo >= IN_LEN - STRIDE then
                  limit_r <= ELEMS + CAP - IN_W;
                else
                  limit_r <= first_u + (STRIDE * IN_CH + CAP - IN_W);
                end if;
              else
                pos     <= 0; -- the next inference, without a gap if loading
                lo      <= -PAD_LO;
                lo_off  <= OFF - PAD_LO;
                need_u  <= (KERNEL - PAD_LO) * IN_CH;
                first_u <= -PAD_LO * IN_CH;
                need_r  <= need(-PAD_LO);
                limit_r <= first(-PAD_LO) + CAP - IN_W;
                if ahead = '1' then
                  rbank <= 1 - rbank;
                else
                  issued <= '1';
                end if;
              end if;
            end if;
          end if;
        end if;
      end if;
    end if;
  end process;
end architecture;
)";

/// The slots of a join FIFO of `depth` beats: one more, for the beat pushed
/// in the cycle before (not yet visible to the registered read port), and at
/// least 3 (GHDL 2.0's --synth fails on a one-entry memory).
int64_t fifoSlots(int64_t depth) { return std::max<int64_t>(depth, 2) + 1; }

/// The testbench (docs/VHDLInterface.md); the fields come from
/// Emitter::emitTestbench.
const char *testbenchTemplate = R"(
-- Testbench of {design}: reads input_file (one raw integer per line, {values} per
-- inference), feeds one inference at a time as fast as the design accepts
-- (back_to_back: the next inference's first beat follows the last beat of
-- the previous one, without waiting for its outputs), takes outputs every
-- cycle (or as stall_every and stall_seed say), writes every output value
-- to output_file (one per line), per inference the cycles from its first
-- input beat to its last output beat (both included) to cycles_file and,
-- from the second inference on, the cycles between its last output beat and
-- the previous inference's (the initiation interval) to ii_file. When
-- expect_ii is not 0, the last of those must equal it; when expect_latency
-- is not 0, every inference's cycles must equal it (back_to_back: the
-- first's). After the last inference it waits 64 cycles more: the design
-- must have sent exactly OUT_BEATS beats per inference (none lost, none
-- duplicated).
entity {tb} is
  generic (
    input_file  : string  := "input.txt";
    output_file : string  := "output.txt";
    cycles_file : string  := "cycles.txt";
    ii_file     : string  := "ii.txt";
    max_cycles  : natural := 100000000;
    back_to_back : boolean := false;
    expect_ii   : natural := 0;
    expect_latency : natural := 0;
    -- when not 0, out_ready is low every stall_every-th cycle (backpressure)
    stall_every : natural := 0;
    -- when not 0 (< 2**16), out_ready is low on a pseudo-random quarter of
    -- the cycles: a 16-bit LFSR (x^16 + x^14 + x^13 + x^11 + 1) seeded with
    -- it steps every cycle; low when its two low bits are 0
    stall_seed  : natural := 0);
end entity;

architecture sim of {tb} is
  constant N         : natural := {n};
  constant IN_W      : natural := {in_w};
  constant IN_BEATS  : natural := {in_beats};
  constant OUT_W     : natural := {out_w};
  constant OUT_BEATS : natural := {out_beats};
  signal clk       : std_logic := '0';
  signal rst       : std_logic := '1';
  signal done      : boolean := false;
  signal cycle     : natural := 0;
  -- first-beat cycle of the inferences in flight, by number mod 64
  type cycle_vector is array (0 to 63) of natural;
  signal starts    : cycle_vector := (others => 0);
  signal finished  : natural := 0; -- inferences whose outputs are all out
  signal last_ii   : natural := 0; -- between the last two inferences' ends
  signal beats_out : natural := 0; -- output beats so far
  signal lfsr      : unsigned(15 downto 0) := to_unsigned(stall_seed mod 2 ** 16, 16);
  signal in_valid, in_ready, out_valid : std_logic := '0';
  signal out_ready : std_logic;
  signal in_data   : std_logic_vector(IN_W * N - 1 downto 0) := (others => '0');
  signal out_data  : std_logic_vector(OUT_W * N - 1 downto 0);
begin
  clk <= not clk after 5 ns when not done;
  out_ready <= '0' when (stall_every /= 0 and cycle mod stall_every = stall_every - 1)
                       or (stall_seed /= 0 and lfsr(1 downto 0) = "00")
               else '1';

  dut : entity work.{top}
    port map (clk => clk, rst => rst, in_valid => in_valid,
              in_ready => in_ready, in_data => in_data,
              out_valid => out_valid, out_ready => out_ready,
              out_data => out_data);

  count : process (clk)
  begin
    if rising_edge(clk) then
      cycle <= cycle + 1;
      if lfsr(0) = '1' then
        lfsr <= shift_right(lfsr, 1) xor x"B400";
      else
        lfsr <= shift_right(lfsr, 1);
      end if;
      assert cycle < max_cycles report "testbench: timeout" severity failure;
    end if;
  end process;

  source : process
    file f         : text;
    variable l     : line;
    variable v     : integer;
    variable good  : boolean;
    variable beat  : std_logic_vector(IN_W * N - 1 downto 0);
    variable k     : natural := 0; -- values in the beat being built
    variable sent  : natural := 0; -- beats of the current inference
    variable started : natural := 0; -- inferences started
  begin
    assert stall_seed < 2 ** 16 report "testbench: stall_seed >= 2**16"
      severity failure;
    file_open(f, input_file, read_mode);
    wait until rising_edge(clk);
    wait until rising_edge(clk);
    rst <= '0';
    while not endfile(f) loop
      readline(f, l);
      read(l, v, good);
      next when not good; -- blank line or comment
      assert v >= -(2 ** (N - 1)) and v < 2 ** (N - 1)
        report "testbench: input value out of range" severity failure;
      beat((k + 1) * N - 1 downto k * N) := std_logic_vector(to_signed(v, N));
      k := k + 1;
      if k = IN_W then
        k := 0;
        if sent = 0 then
          while finished < started and not back_to_back loop
            wait until rising_edge(clk);
          end loop;
          assert started - finished < 64
            report "testbench: more than 64 inferences in flight" severity failure;
        end if;
        in_data  <= beat;
        in_valid <= '1';
        loop
          wait until rising_edge(clk);
          exit when in_ready = '1';
        end loop;
        if sent = 0 then
          starts(started mod 64) <= cycle;
        end if;
        in_valid <= '0';
        sent := sent + 1;
        if sent = IN_BEATS then
          sent  := 0;
          started := started + 1;
        end if;
      end if;
    end loop;
    file_close(f);
    assert k = 0 and sent = 0
      report "testbench: input ends inside an inference" severity failure;
    while finished < started loop
      wait until rising_edge(clk);
    end loop;
    wait for 0 ns; -- last_ii of the last inference
    assert expect_ii = 0 or started < 2 or last_ii = expect_ii
      report "testbench: initiation interval " & integer'image(last_ii) &
             ", expected " & integer'image(expect_ii) severity failure;
    for i in 1 to 64 loop
      wait until rising_edge(clk);
    end loop;
    assert beats_out = started * OUT_BEATS
      report "testbench: " & integer'image(beats_out) & " output beats, " &
             "expected " & integer'image(started * OUT_BEATS) &
             ": lost or duplicated beats" severity failure;
    done <= true;
    wait;
  end process;

  sink : process (clk)
    file f        : text open write_mode is output_file;
    file c        : text open write_mode is cycles_file;
    file g        : text open write_mode is ii_file;
    variable l    : line;
    variable outs : natural := 0;
    variable last : integer := -1; -- the previous inference's last beat
  begin
    if rising_edge(clk) and rst = '0' and out_valid = '1' and out_ready = '1' then
      for i in 0 to OUT_W - 1 loop
        write(l, to_integer(signed(out_data((i + 1) * N - 1 downto i * N))));
        writeline(f, l);
      end loop;
      outs := outs + 1;
      beats_out <= beats_out + 1;
      if outs = OUT_BEATS then
        outs := 0;
        write(l, cycle - starts(finished mod 64) + 1);
        writeline(c, l);
        assert expect_latency = 0 or (back_to_back and finished > 0) or
               cycle - starts(finished mod 64) + 1 = expect_latency
          report "testbench: latency " &
                 integer'image(cycle - starts(finished mod 64) + 1) &
                 ", expected " & integer'image(expect_latency)
          severity failure;
        if last >= 0 then
          write(l, cycle - last);
          writeline(g, l);
          last_ii <= cycle - last;
        end if;
        last := cycle;
        finished <= finished + 1;
      end if;
    end if;
  end process;
end architecture;
)";

/// One mac unit's schedule, computed before anything is printed: the
/// constants of its entity, its control tables and ROM rows, and its report
/// figures.
/// (The counters the cycle model needs come from vhdl::MacCounters.)
struct MacSchedule : vhdl::MacCounters {
  int64_t outWidth, outLanes, reduceLanes, padValue;
  int64_t accBits, shift, outBits, treeLevels;
  int rounding;
  bool wrap;
  int64_t capacity; // window buffer elements the rtl op asks for
  int64_t rows;     // rows of one input beat per bank (>= capacity / inWidth)
  int64_t rows2;    // a power of two >= rows: the bank's address stride
  bool lineBuffer;  // rows < inBeats: rows reused modulo rows (a power of 2)
  bool shared;      // inWidth == inChannels: one read port per reduction lane
  int64_t ports;    // read ports of the window buffer
  std::vector<std::vector<int64_t>> romRows; // address blk * STEPS + step
  std::vector<int64_t> laneBase, bias;       // per block and output lane
  std::vector<int64_t> termTap, termChannel; // per step and reduction lane
  // report figures
  int64_t multipliers, treeAdders, romBits, bufferBits, tableBits;
  int64_t macs, macCycles, idealCycles;
};

/// A pool stage's constants and architecture; the fields come from
/// Emitter::printPool.
const char *poolTemplate = R"(  constant CH          : natural := {ch};
  constant IN_LEN      : natural := {in_len};
  constant OUT_LEN     : natural := {out_len};
  constant KSIZE       : natural := {ksize};
  constant STRIDE      : natural := {stride};
  constant PAD         : natural := {pad};
  constant IS_MAX      : boolean := {is_max};
  constant INCLUDE_PAD : boolean := {include_pad}; -- avg: divide by KSIZE
  constant ROUNDING    : natural := {rounding}; -- avg: 0 truncate, 1 nearest, 2 half_even
  constant ROWS2       : natural := {rows2}; -- a power of two >= IN_LEN
  subtype row_t is sample_vector(0 to CH - 1);
  type row_vector is array (natural range <>) of row_t;
  -- two banks of a whole input, one row per input position (one write
  -- port, KSIZE registered read ports: block RAM where the tools have it):
  -- while the windows read one inference, the next streams into the other
  -- bank
  type mem_t is array (0 to 2 * ROWS2 - 1) of row_t;
  signal mem     : mem_t;
  signal wbank   : natural range 0 to 1; -- the bank being loaded
  signal rbank   : natural range 0 to 1; -- the bank being read
  signal ahead   : std_logic; -- loading the inference after the read one
  signal rows    : natural range 0 to IN_LEN; -- input positions received
  signal avail   : natural range 0 to IN_LEN; -- of the inference read
  signal pos     : natural range 0 to OUT_LEN; -- next output position
  -- stage 1: the window's rows and which of them are inside the input
  signal w_valid : std_logic;
  signal wrows   : row_vector(0 to KSIZE - 1);
  signal inside  : std_logic_vector(0 to KSIZE - 1);
  signal o_valid : std_logic;
  signal o_data  : sample_vector(0 to CH - 1);
  signal accept  : std_logic;
  signal fire    : std_logic; -- read the window of pos
  signal move    : std_logic; -- the output register takes stage 1

  -- input positions window l needs: up to its last one inside the input
  function need(l : natural) return natural is
  begin
    if l * STRIDE + KSIZE - PAD > IN_LEN then
      return IN_LEN;
    elsif l * STRIDE + KSIZE - PAD < 1 then
      return 1; -- only padding: once the inference has begun
    end if;
    return l * STRIDE + KSIZE - PAD;
  end function;

  -- floor(a / b) for b > 0 (VHDL's mod takes the sign of b)
  function floor_div(a : integer; b : positive) return integer is
  begin
    return (a - (a mod b)) / b;
  end function;

  -- the window of every channel from its rows: padded positions never win
  -- and add 0
  function pool(v : row_vector; ins : std_logic_vector) return sample_vector is
    variable y : sample_vector(0 to CH - 1);
    variable best, sum, count, x, q, r : integer;
  begin
    for c in 0 to CH - 1 loop
      best  := -(2 ** (DATA_BITS - 1));
      sum   := 0;
      count := 0;
      for t in 0 to KSIZE - 1 loop
        if ins(t) = '1' then
          x := to_integer(v(t)(c));
          if x > best then
            best := x;
          end if;
          sum   := sum + x;
          count := count + 1;
        end if;
      end loop;
      if INCLUDE_PAD then
        count := KSIZE;
      end if;
      q := floor_div(sum, count);
      r := sum - q * count; -- 0 <= r < count
      if (ROUNDING = 1 and 2 * r >= count) or
         (ROUNDING = 2 and (2 * r > count or (2 * r = count and q mod 2 = 1)))
      then
        q := q + 1;
      end if;
      if IS_MAX then
        y(c) := to_signed(best, DATA_BITS);
      else
        y(c) := to_signed(q, DATA_BITS);
      end if;
    end loop;
    return y;
  end function;
begin
  ahead     <= '1' when wbank /= rbank else '0';
  avail     <= IN_LEN when ahead = '1' else rows;
  accept    <= '1' when rows < IN_LEN else '0';
  in_ready  <= accept;
  out_valid <= o_valid;
  out_data  <= o_data;
  move <= '1' when o_valid = '0' or out_ready = '1' else '0';
  fire <= '1' when pos < OUT_LEN and avail >= need(pos) and
                   (w_valid = '0' or move = '1') else '0';

  wr_port : process (clk)
  begin
    if rising_edge(clk) then
      if in_valid = '1' and accept = '1' then
        mem(wbank * ROWS2 + rows) <= in_data;
      end if;
    end if;
  end process;

  -- the window's rows (any row for a padded position: it is ignored)
  rd_ports : process (clk)
    variable p : integer range -PAD to OUT_LEN * STRIDE + KSIZE;
  begin
    if rising_edge(clk) then
      if fire = '1' then
        for t in 0 to KSIZE - 1 loop
          p := pos * STRIDE + t - PAD;
          wrows(t) <= mem(rbank * ROWS2 + p mod ROWS2);
        end loop;
      end if;
    end if;
  end process;

  process (clk)
    variable p : integer range -PAD to OUT_LEN * STRIDE + KSIZE;
  begin
    if rising_edge(clk) then
      if rst = '1' then
        rows    <= 0;
        pos     <= 0;
        wbank   <= 0;
        rbank   <= 0;
        w_valid <= '0';
        o_valid <= '0';
      else
        -- after an inference's last position the next one goes to the other
        -- bank unless that bank is still read (then it waits)
        if in_valid = '1' and accept = '1' then
          if rows = IN_LEN - 1 and ahead = '0' then
            rows  <= 0;
            wbank <= 1 - wbank;
          else
            rows <= rows + 1;
          end if;
        elsif rows = IN_LEN and ahead = '0' then
          rows  <= 0;
          wbank <= 1 - wbank;
        end if;
        -- stage 2: the output register
        if move = '1' then
          o_valid <= w_valid;
          if w_valid = '1' then
            o_data <= pool(wrows, inside);
          end if;
        end if;
        -- stage 1: which of the window's positions are inside the input;
        -- after the last window the next inference, once it is loading
        if fire = '1' then
          w_valid <= '1';
          for t in 0 to KSIZE - 1 loop
            p := pos * STRIDE + t - PAD;
            if p >= 0 and p < IN_LEN then
              inside(t) <= '1';
            else
              inside(t) <= '0';
            end if;
          end loop;
          if pos = OUT_LEN - 1 and ahead = '1' then
            pos   <= 0;
            rbank <= 1 - rbank;
          else
            pos <= pos + 1;
          end if;
        else
          if move = '1' then
            w_valid <= '0';
          end if;
          if pos = OUT_LEN and ahead = '1' then
            pos   <= 0;
            rbank <= 1 - rbank;
          end if;
        end if;
      end if;
    end if;
  end process;
end architecture;
)";

/// One pool stage's schedule: the constants of its entity and its report
/// figure.
struct PoolSchedule {
  int64_t width, inLen, outLen, kernel, stride, padding;
  bool isMax, includePad;
  int rounding;
  int64_t rows2;      // a power of two >= inLen: the bank's address stride
  int64_t bufferBits; // report figure
};

/// A join stage: its entity around one FIFO per input; the fields come from
/// Emitter::printJoin, which fills the pieces below once per input.
const char *joinTemplate = R"(
-- Layer {name}: {function} of {inputs} streams, each behind a FIFO, one register stage.
entity {entity} is
  port (
    clk       : in  std_logic;
    rst       : in  std_logic;
{ports}    out_valid : out std_logic;
    out_ready : in  std_logic;
    out_data  : out sample_vector(0 to {out_last}));
end entity;

architecture rtl of {entity} is
  constant OUT_W : natural := {out_w};
{decls}  signal o_valid : std_logic;
  signal o_data  : sample_vector(0 to OUT_W - 1);
  signal fire    : std_logic; -- the output register takes a beat
  -- concat_length: the input being passed on and its beats so far
  signal part    : natural range 0 to {last_part};
  signal sent    : natural range 0 to {last_sent};
begin
{ready}  out_valid <= o_valid;
  out_data  <= o_data;
  fire <= '1' when (o_valid = '0' or out_ready = '1') and ({available}) else '0';

  process (clk)
    variable push, pop : boolean;
    variable rdn : natural; -- the read address after this edge
  begin
    if rising_edge(clk) then
      if rst = '1' then
{resets}        o_valid <= '0';
        part <= 0;
        sent <= 0;
      else
{pushes}        if o_valid = '1' and out_ready = '1' then
          o_valid <= '0';
        end if;
        if fire = '1' then
          o_valid <= '1';
{data}        end if;
      end if;
    end if;
  end process;
end architecture;
)";

/// A join's ports of input {i}.
const char *joinPortTemplate = R"(    in{i}_valid : in  std_logic;
    in{i}_ready : out std_logic;
    in{i}_data  : in  sample_vector(0 to {last});
)";

/// A join's FIFO of input {i}: its declarations.
const char *joinFifoTemplate =
    R"(  -- FIFO {i}: as many beats of input {i} as its branch runs ahead ({beats} per
  -- inference) and the beat pushed in the cycle before
  constant D{i} : natural := {slots};
  constant B{i} : natural := {beats};
  type mem{i}_t is array (0 to D{i} - 1) of sample_vector(0 to {last});
  signal mem{i} : mem{i}_t;
  signal wr{i}, rd{i} : natural range 0 to D{i} - 1;
  signal cnt{i} : natural range 0 to D{i};
  -- the oldest entry, read at the last edge (a registered read port:
  -- block RAM where the tools have it); vis{i}: the entries written
  -- before that edge (q{i} shows the oldest when vis{i} > 0)
  signal q{i} : sample_vector(0 to {last});
  signal vis{i} : natural range 0 to D{i};
)";

/// A join's FIFO of input {i}: its ready and its reset.
const char *joinReadyTemplate =
    "  in{i}_ready <= '1' when cnt{i} < D{i} else '0';\n";
const char *joinResetTemplate = R"(        wr{i} <= 0;
        rd{i} <= 0;
        cnt{i} <= 0;
        vis{i} <= 0;
)";

/// A join's FIFO of input {i}: one clock edge.
const char *joinPushTemplate =
    R"(        -- FIFO {i}: push a beat, pop one when the output takes it
        push := in{i}_valid = '1' and cnt{i} < D{i};
        pop := {pop};
        if push then
          mem{i}(wr{i}) <= in{i}_data;
          if wr{i} = D{i} - 1 then -- (no mod: D{i} is rarely a power of 2)
            wr{i} <= 0;
          else
            wr{i} <= wr{i} + 1;
          end if;
        end if;
        rdn := rd{i};
        if pop then
          if rd{i} = D{i} - 1 then
            rdn := 0;
          else
            rdn := rd{i} + 1;
          end if;
          vis{i} <= cnt{i} - 1;
        else
          vis{i} <= cnt{i};
        end if;
        rd{i} <= rdn;
        q{i} <= mem{i}(rdn);
        if push and not pop then
          cnt{i} <= cnt{i} + 1;
        elsif pop and not push then
          cnt{i} <= cnt{i} - 1;
        end if;
)";

/// The output beat of a join: concat_length passes input {i} on when its
/// part has come, concat_channels places each input at its lanes, add sums
/// two.
const char *joinPartTemplate = R"(          if part = {i} then
            o_data <= q{i};
            if sent = B{i} - 1 then
              sent <= 0;
              part <= {next};
            else
              sent <= sent + 1;
            end if;
          end if;
)";
const char *joinLanesTemplate = "          o_data({lo} to {hi}) <= q{i};\n";
const char *joinAddTemplate = R"(          for i in 0 to OUT_W - 1 loop
            o_data(i) <= requantize(resize(q0(i), DATA_BITS + 1) +
              resize(q1(i), DATA_BITS + 1), 0, 0, {wrap}, {bits});
          end loop;
)";

/// One join stage's schedule: its FIFOs and its report figures.
struct JoinSchedule {
  struct Input {
    int64_t width, beats;
    int64_t depth;  // beats its branch runs ahead (Emitter::sizeFifos)
    int64_t slots;  // fifoSlots(depth): the FIFO's entries
    int64_t offset; // its first output lane (concat_channels)
  };
  std::string function; // add, concat_channels or concat_length
  std::vector<Input> inputs;
  int64_t outWidth, maxBeats;
  bool wrap;    // add: the sum wraps (else saturates)
  int64_t bits; // add: the sum's bits
  // report figures
  int64_t bufferBits, serialBeats;
};

/// An elementwise stage's constants and architecture around its function
/// `f` ({body}); the fields come from Emitter::printElementwise.
const char *elementwiseTemplate = R"(  constant W  : natural := {width};
  constant LO : integer := {lo};
  constant HI : integer := {hi};
  signal o_valid : std_logic;
  signal o_data  : sample_vector(0 to W - 1);

  function f(x : sample_t) return sample_t is
{body}  end function;
begin
  in_ready  <= '1' when o_valid = '0' or out_ready = '1' else '0';
  out_valid <= o_valid;
  out_data  <= o_data;

  process (clk)
  begin
    if rising_edge(clk) then
      if rst = '1' then
        o_valid <= '0';
      elsif o_valid = '0' or out_ready = '1' then
        o_valid <= in_valid;
        for i in 0 to W - 1 loop
          o_data(i) <= f(in_data(i));
        end loop;
      end if;
    end if;
  end process;
end architecture;
)";

/// The bodies of `f`: requantize and clamp, each then converting ({convert}:
/// the requantize call or nothing), and hardsigmoid: u = x + 3 * 2^Fi; the
/// result is the rounding of m / (3 * 2^J) with m = u * 2^E
/// (fixed::hardsigmoid); floor(m / 3) is (m * MAGIC) >> MSHIFT, exact on
/// 0 <= m <= LIMIT (checked by Emitter::prepareElementwise).
const char *requantizeBodyTemplate = R"(    variable y : sample_t;
  begin
    y := x;
{convert}    return y;
)";
const char *clampBodyTemplate = R"(    variable y : sample_t;
  begin
    y := x;
    if y < to_signed(LO, DATA_BITS) then
      y := to_signed(LO, DATA_BITS);
    elsif y > to_signed(HI, DATA_BITS) then
      y := to_signed(HI, DATA_BITS);
    end if;
{convert}    return y;
)";
const char *hardsigmoidBodyTemplate = R"(    constant FI     : natural := {fi};
    constant E      : natural := {e};
    constant J      : natural := {j};
    constant MB     : natural := {mb};
    constant MAGIC  : natural := {magic};
    constant MAGB   : natural := {magb};
    constant MSHIFT : natural := {mshift};
    variable u : integer;
    variable m, q : unsigned(MB - 1 downto 0);
    variable r, t, d : unsigned(MB + 2 downto 0);
  begin
    u := to_integer(x) + 3 * 2 ** FI;
    if u <= 0 then
      return to_signed(0, DATA_BITS);
    elsif u >= 6 * 2 ** FI then
      return to_signed(HI, DATA_BITS);
    end if;
    m := shift_left(to_unsigned(u, MB), E);
    q := resize(shift_right(m * to_unsigned(MAGIC, MAGB), MSHIFT), MB);
    q := shift_right(q, J); -- floor(m / (3 * 2^J))
    t := resize(q, MB + 3);
    r := resize(m, MB + 3) - (shift_left(t, J) + shift_left(t, J + 1));
    d := to_unsigned(3 * 2 ** J, MB + 3);
    if ({rounding} = 1 and shift_left(r, 1) >= d) or
       ({rounding} = 2 and (shift_left(r, 1) > d or
                    (shift_left(r, 1) = d and q(0) = '1'))) then
      q := q + 1;
    end if;
    if q > to_unsigned(HI, MB) then
      return to_signed(HI, DATA_BITS);
    end if;
    return resize(signed(resize(q, MB + 1)), DATA_BITS);
)";
const char *convertTemplate =
    "    y := requantize(y, {shift}, {rounding}, {wrap}, {bits});\n";
const char *conversionCommentTemplate =
    " ({in_frac} to {out_frac} fraction bits, {bits} bits, {rounding}, "
    "{overflow})";

/// One elementwise stage's schedule: its constants, its conversion and
/// hardsigmoid's divide-by-3 constants, and its report figure.
struct ElementwiseSchedule {
  std::string function;
  int64_t width, lo, hi;
  bool converts; // in_frac, out_frac and bits are set: the value is converted
  int64_t inFrac, outFrac, bits;
  std::string roundingName, overflowName;
  int rounding;
  bool wrap;
  // hardsigmoid: the constants of its body
  int64_t e, j, mb, magic, magicBits, magicShift;
  int64_t constantMultipliers; // report figure: hardsigmoid's slope per value
};

/// The package of the shared types and functions (Emitter::emitPackage).
const char *packageTemplate = R"({header}
-- Shared types of the {design} network (generated by unum-translate --to-vhdl).
package {pkg} is
  constant DATA_BITS : natural := {data_bits};
  constant FRAC_BITS : natural := {frac_bits};
  subtype sample_t is signed(DATA_BITS - 1 downto 0);
  type sample_vector is array (natural range <>) of sample_t;
  type int_vector is array (natural range <>) of integer;

  -- v * 2^-shift rounded (rounding 0: truncate, toward -infinity; 1:
  -- nearest, ties toward +infinity; 2: half_even, ties to even; shift <= 0
  -- is exact), then brought to `bits` bits (saturated, or wrapped: the low
  -- bits as two's complement), as a DATA_BITS-bit value.
  function requantize(v : signed; shift : integer; rounding : natural;
                      wrap : boolean; bits : natural) return sample_t;
  -- integer literals as DATA_BITS-bit values (ROM contents)
  function to_samples(v : int_vector) return sample_vector;
end package;

package body {pkg} is
  function requantize(v : signed; shift : integer; rounding : natural;
                      wrap : boolean; bits : natural) return sample_t is
    -- room for the fraction bits a negative shift adds and the rounding carry
    constant W : natural := v'length + maximum(0, -shift) + 1;
    variable q, half, kept : signed(W - 1 downto 0);
  begin
    q := resize(v, W);
    if shift > 0 then
      half := shift_left(to_signed(1, W), shift - 1);
      if rounding = 1 then
        q := q + half;
      elsif rounding = 2 then
        -- ties to even: add half an LSB, less one unless the kept LSB is 1
        kept := shift_right(q, shift);
        if kept(0) = '1' then
          q := q + half;
        else
          q := q + half - 1;
        end if;
      end if;
      q := shift_right(q, shift);
    elsif shift < 0 then
      q := shift_left(q, -shift);
    end if;
    if wrap then
      q := shift_right(shift_left(q, W - bits), W - bits);
    elsif q > to_signed(2 ** (bits - 1) - 1, W) then
      q := to_signed(2 ** (bits - 1) - 1, W);
    elsif q < to_signed(-(2 ** (bits - 1)), W) then
      q := to_signed(-(2 ** (bits - 1)), W);
    end if;
    return resize(q, DATA_BITS);
  end function;

  function to_samples(v : int_vector) return sample_vector is
    variable r : sample_vector(0 to v'length - 1);
  begin
    for i in r'range loop
      r(i) := to_signed(v(v'low + i), DATA_BITS);
    end loop;
    return r;
  end function;
end package body;
)";

/// The fork entity (Emitter::emitFork).
const char *forkTemplate = R"(
-- Broadcasts a stream to OUTS readers: reader i sees the beat until it has
-- taken it; the beat leaves when every reader has taken it.
entity {fork} is
  generic (OUTS : positive);
  port (
    clk       : in  std_logic;
    rst       : in  std_logic;
    in_valid  : in  std_logic;
    in_ready  : out std_logic;
    out_valid : out std_logic_vector(0 to OUTS - 1);
    out_ready : in  std_logic_vector(0 to OUTS - 1));
end entity;

architecture rtl of {fork} is
  signal taken : std_logic_vector(0 to OUTS - 1);
  signal done  : std_logic;
begin
  readers : for i in 0 to OUTS - 1 generate
    out_valid(i) <= in_valid and not taken(i);
  end generate;

  process (taken, out_ready)
    variable d : std_logic;
  begin
    d := '1';
    for i in 0 to OUTS - 1 loop
      if taken(i) = '0' and out_ready(i) = '0' then
        d := '0';
      end if;
    end loop;
    done <= d;
  end process;
  in_ready <= done;

  process (clk)
  begin
    if rising_edge(clk) then
      if rst = '1' or (in_valid = '1' and done = '1') then
        taken <= (others => '0');
      else
        for i in 0 to OUTS - 1 loop
          if in_valid = '1' and out_ready(i) = '1' then
            taken(i) <= '1';
          end if;
        end loop;
      end if;
    end if;
  end process;
end architecture;
)";

/// The top level: the stages as a graph between the design's ports; the
/// fields come from Emitter::printTop, which fills the pieces below per
/// stream and per stage.
const char *topTemplate = R"(
-- Network {design}: the stages as a graph. Streaming interface (docs/VHDLInterface.md):
-- one beat = {in_w} values (in) / {out_w} values (out) of {n} bits, value i in bits
-- (i+1)*{n}-1 downto i*{n}; a beat moves when valid and ready are both '1'
-- at a rising clock edge; rst is synchronous and active high.
entity {top} is
  port (
    clk       : in  std_logic;
    rst       : in  std_logic;
    in_valid  : in  std_logic;
    in_ready  : out std_logic;
    in_data   : in  std_logic_vector({in_last} downto 0);
    out_valid : out std_logic;
    out_ready : in  std_logic;
    out_data  : out std_logic_vector({out_last} downto 0));
end entity;

architecture rtl of {top} is
{decls}begin
  s0_valid <= in_valid;
  in_ready <= s0_ready;
  unpack : for i in 0 to {in_lanes_last} generate
    s0_data(i) <= signed(in_data((i + 1) * {n} - 1 downto i * {n}));
  end generate;
{body}  out_valid <= {out_valid};
  {out_ready} <= out_ready;
  pack : for i in 0 to {out_lanes_last} generate
    out_data((i + 1) * {n} - 1 downto i * {n}) <= std_logic_vector({out_stream}_data(i));
  end generate;
end architecture;
)";

/// A stream {s} of lanes 0 to {last}, and the valid and ready of its fork's
/// readers.
const char *topStreamTemplate =
    "  signal {s}_valid, {s}_ready : std_logic;\n"
    "  signal {s}_data : sample_vector(0 to {last});\n";
const char *topForkSignalsTemplate =
    "  signal {f}_valid, {f}_ready : std_logic_vector(0 to {last});\n";
/// The fork {f} of stream {s}.
const char *topForkTemplate = R"(  {f} : entity work.{fork}
    generic map (OUTS => {outs})
    port map (
      clk => clk, rst => rst, in_valid => {s}_valid, in_ready => {s}_ready,
      out_valid => {f}_valid, out_ready => {f}_ready);
)";
/// Stage {i}, and one of its input ports.
const char *topInstanceTemplate = R"(  u{i} : entity work.{entity}
    port map (
      clk => clk, rst => rst,
{ports}      out_valid => {s}_valid, out_ready => {s}_ready, out_data => {s}_data);
)";
const char *topPortTemplate =
    "      {prefix}_valid => {valid}, {prefix}_ready => {ready},\n"
    "      {prefix}_data => {source}_data,\n";

/// The top level's wiring: a stream per producer (0 the design input, i + 1
/// stage i), a fork where a stream has several readers, an instance per
/// stage.
struct TopSchedule {
  struct Stream {
    std::string name; // its signals' prefix
    int64_t width;
    std::string fork; // the fork's signals' prefix, when readers > 1
    size_t readers;
  };
  struct Port {
    std::string prefix, valid, ready, source;
  };
  struct Instance {
    std::string entity;
    std::vector<Port> ports;
    std::string out; // the stream it drives
  };
  std::vector<Stream> streams;
  std::vector<Instance> instances;
  std::string outValid, outReady, outStream; // the design output's
};

struct Emitter {
  DesignOp design;
  vhdl::Namer namer;
  std::string top, pkg, tb;
  std::vector<std::string> entities; // one per stage
  Files files;
  std::string error; // set when a stage cannot be emitted
  std::vector<std::optional<MacSchedule>> schedules;           // per stage
  std::vector<std::optional<PoolSchedule>> pools;              // per stage
  std::vector<std::optional<JoinSchedule>> joins;              // per stage
  std::vector<std::optional<ElementwiseSchedule>> elementwise; // per stage
  vhdl::Timing timing; // one inference alone, as the testbench feeds it
  /// Per stage, a join's FIFO depths: the most beats of each input its
  /// branch runs ahead of the others (sizeFifos).
  std::vector<std::vector<int64_t>> fifoDepths;

  explicit Emitter(DesignOp design) : design(design) {
    top = namer.get(design.getSymName());
    pkg = namer.get(top + "_pkg");
    tb = namer.get(top + "_tb");
    for (Operation &stage : design.getBody().front())
      entities.push_back(namer.get(
          top + "_" +
          stage.getAttrOfType<StringAttr>("sym_name").getValue().str()));
    buildGraph();
    if (llvm::any_of(consumers, [](const auto &c) { return c.size() > 1; }))
      fork = namer.get(top + "_fork");
  }

  /// Producer 0 is the design input, producer i + 1 stage i; a consumer is
  /// (stage, input port), stage -1 being the design output.
  std::vector<std::vector<std::pair<int, int>>> consumers;
  std::vector<int64_t> producerWidth;
  std::vector<std::vector<size_t>> stageInputs; // producers per stage port
  size_t outputProducer = 0;
  std::string fork; // the fork entity, when a stream has several readers

  void buildGraph() {
    llvm::StringMap<size_t> producer;
    producer[design.getInputName()] = 0;
    producerWidth.push_back(design.getInWidth());
    size_t i = 0;
    for (Operation &stage : design.getBody().front()) {
      StageStreams s = getStageStreams(&stage);
      stageInputs.emplace_back();
      for (Attribute name : s.inputs)
        stageInputs.back().push_back(
            producer.lookup(cast<StringAttr>(name).getValue()));
      producer[stage.getAttrOfType<StringAttr>("sym_name").getValue()] = ++i;
      producerWidth.push_back(s.out.width);
    }
    consumers.resize(i + 1);
    for (size_t st = 0; st < stageInputs.size(); ++st)
      for (size_t port = 0; port < stageInputs[st].size(); ++port)
        consumers[stageInputs[st][port]].push_back({int(st), int(port)});
    outputProducer = producer.lookup(design.getOutputSource());
    consumers[outputProducer].push_back({-1, 0});
  }

  std::string use() const { return header + ("use work." + pkg + ".all;\n"); }

  void emitPackage() {
    files.push_back(
        {pkg + ".vhd",
         vhdl::expand(packageTemplate, {{"header", header},
                                        {"design", design.getSymName().str()},
                                        {"pkg", pkg},
                                        {"data_bits", design.getDataBits()},
                                        {"frac_bits", design.getFracBits()}})});
  }

  /// Computes a mac unit's schedule: nothing is printed here.
  MacSchedule prepareMac(MacUnitOp unit) {
    MacParts p = getMacParts(unit);
    CountersOp c = p.counters;
    MacSchedule s;
    s.inWidth = unit.getInWidth();
    s.outWidth = unit.getOutWidth();
    s.inBeats = unit.getInBeats();
    s.inLen = c.getInLen();
    s.inChannels = c.getInChannels();
    s.elements = s.inLen * s.inChannels;
    s.outLen = c.getOutLen();
    s.outLanes = p.rom.getOutLanes();
    s.reduceLanes = p.rom.getReduceLanes();
    s.blocks = c.getBlocks();
    s.steps = c.getSteps();
    s.stride = c.getStride();
    s.padLo = c.getPadLo();
    s.padValue = c.getPadValue();
    s.kernel = c.getKernel();
    s.accBits = p.accumulators.getBits();
    s.shift = p.requantizer.getShift();
    s.rounding = roundingCode(p.requantizer.getRounding());
    s.wrap = p.requantizer.getOverflow() == "wrap";
    s.outBits = p.requantizer.getBits();
    s.treeLevels = fixed::ceilLog2(s.reduceLanes);
    s.capacity = p.buffer.getElements();
    // Rows of whole beats: a line buffer of a power of two rows that holds
    // at least the capacity asked for, or every beat of the input.
    s.rows =
        int64_t(llvm::PowerOf2Ceil((s.capacity + s.inWidth - 1) / s.inWidth));
    s.lineBuffer = s.rows < s.inBeats;
    if (!s.lineBuffer)
      s.rows = s.inBeats;
    s.rows2 = int64_t(llvm::PowerOf2Ceil(s.rows));
    s.bankElements = s.rows * s.inWidth; // CAP
    s.shared = s.inWidth == s.inChannels;
    int64_t cpg = c.getChannelsPerGroup(), terms = s.kernel * cpg;
    // Tap and channel of term step * PR + r (-1 past the last term).
    for (int64_t t = 0; t < s.steps * s.reduceLanes; ++t) {
      s.termTap.push_back(t < terms ? t / cpg : -1);
      s.termChannel.push_back(t < terms ? t % cpg : -1);
    }
    std::vector<int64_t> rom = integersOf(p.rom.getValues());
    int64_t columns = s.outLanes * s.reduceLanes;
    for (int64_t a = 0; a < s.blocks * s.steps; ++a)
      s.romRows.emplace_back(rom.begin() + a * columns,
                             rom.begin() + (a + 1) * columns);
    s.laneBase = p.rom.getLaneBase().vec();
    s.bias = integersOf(p.requantizer.getBias());

    s.multipliers = p.multipliers.getCount();
    s.romBits = p.rom.getValues().getNumElements() * p.rom.getBits();
    s.macs = s.outLen * s.outWidth * terms;
    s.macCycles = s.outLen * s.blocks * s.steps;
    s.idealCycles = (s.macs + s.multipliers - 1) / s.multipliers;
    s.treeAdders = p.tree.getCount() * (p.tree.getInputs() - 1);
    s.ports = s.shared ? s.reduceLanes : s.outLanes * s.reduceLanes;
    // two banks of rows2 rows (the memory as declared)
    s.bufferBits = 2 * s.rows2 * s.inWidth * p.buffer.getBits();
    // the constant tables besides the weights: LANE_BASE and BIAS per lane,
    // TERM_TAP and TERM_CH per term (signed, -1 marks idle)
    auto signedBits = [](int64_t max) {
      return int64_t(fixed::ceilLog2(max + 1)) + 1;
    };
    s.tableBits =
        int64_t(s.laneBase.size()) *
            (signedBits(s.inChannels) + design.getDataBits() + s.shift) +
        int64_t(s.termTap.size()) * (signedBits(s.kernel) + signedBits(cpg));
    return s;
  }

  /// Prints a mac unit from its schedule.
  std::string printMac(const MacSchedule &s, StringRef name, StringRef entity) {
    std::string romRows;
    for (const std::vector<int64_t> &row : s.romRows)
      romRows += (romRows.empty() ? "    " : ",\n    ") +
                 std::string("to_samples(") + aggregate(row) + ")";
    if (s.romRows.size() == 1)
      romRows = "    0 => " + romRows.substr(4);
    std::string comment =
        vhdl::expand("Layer {name}: {po} output lanes x {pr} reduction lanes, "
                     "{blocks} blocks x {steps} steps per output position.",
                     {{"name", name.str()},
                      {"po", s.outLanes},
                      {"pr", s.reduceLanes},
                      {"blocks", s.blocks},
                      {"steps", s.steps}});
    return use() + stageEntity(entity, comment, s.inWidth, s.outWidth) +
           vhdl::expand(macTemplate,
                        {{"in_w", s.inWidth},
                         {"in_beats", s.inBeats},
                         {"elems", s.elements},
                         {"in_len", s.inLen},
                         {"in_ch", s.inChannels},
                         {"out_len", s.outLen},
                         {"out_ch", s.outWidth},
                         {"po", s.outLanes},
                         {"pr", s.reduceLanes},
                         {"blocks", s.blocks},
                         {"steps", s.steps},
                         {"stride", s.stride},
                         {"pad_lo", s.padLo},
                         {"pad_value", s.padValue},
                         {"acc_bits", s.accBits},
                         {"shift", s.shift},
                         {"rounding", s.rounding},
                         {"wrap", s.wrap},
                         {"out_bits", s.outBits},
                         {"tree_levels", s.treeLevels},
                         {"rows", s.rows},
                         {"rows2", s.rows2},
                         {"shared", s.shared},
                         {"ports", s.ports},
                         {"rom_rows", romRows},
                         {"lane_base", aggregate(s.laneBase)},
                         {"bias", aggregate(s.bias)},
                         {"term_tap", aggregate(s.termTap)},
                         {"term_ch", aggregate(s.termChannel)},
                         {"kernel", s.kernel},
                         {"row_slot", s.lineBuffer ? "b mod ROWS" : "b"}});
  }

  /// Computes an elementwise stage's schedule: nothing is printed here.
  ElementwiseSchedule prepareElementwise(ElementwiseOp op) {
    ElementwiseSchedule s;
    s.function = op.getFunction().str();
    s.width = op.getWidth();
    s.lo = op.getLo();
    s.hi = op.getHi();
    s.converts = op.getInFrac().has_value();
    s.inFrac = op.getInFrac().value_or(0);
    s.outFrac = op.getOutFrac().value_or(0);
    s.bits = op.getBits().value_or(0);
    s.roundingName = op.getRounding().value_or("nearest").str();
    s.overflowName = op.getOverflow().value_or("saturate").str();
    s.rounding = roundingCode(op.getRounding());
    s.wrap = op.getOverflow() == "wrap";
    s.e = s.j = s.mb = s.magic = s.magicBits = s.magicShift = 0;
    s.constantMultipliers = 0;
    if (s.function == "requantize" || s.function == "clamp")
      return s;
    // hardsigmoid multiplies every value by its constant slope
    s.constantMultipliers = s.width;
    int64_t fi = *op.getInFrac(), fo = *op.getOutFrac();
    fixed::HardsigmoidShape shape = fixed::hardsigmoidShape(fi, fo);
    int64_t limit = 6 * (int64_t(1) << std::max(fi, fo));
    fixed::DivideBy3 d = fixed::divideBy3(limit);
    if (!d.ok)
      error = "no multiply-and-shift divides by 3 exactly below " +
              std::to_string(limit);
    s.e = std::max(shape.e, 0);
    s.j = shape.j;
    s.mb = fixed::ceilLog2(limit + 1) + 1;
    s.magic = d.magic;
    s.magicBits = fixed::ceilLog2(d.magic + 1);
    s.magicShift = d.shift;
    return s;
  }

  /// Prints an elementwise stage from its schedule.
  std::string printElementwise(const ElementwiseSchedule &s, StringRef name,
                               StringRef entity) {
    std::string comment = s.function + " on every value", convert, body;
    if (s.converts) {
      comment += vhdl::expand(conversionCommentTemplate,
                              {{"in_frac", s.inFrac},
                               {"out_frac", s.outFrac},
                               {"bits", s.bits},
                               {"rounding", s.roundingName},
                               {"overflow", s.overflowName}});
      convert = vhdl::expand(convertTemplate, {{"shift", s.inFrac - s.outFrac},
                                               {"rounding", s.rounding},
                                               {"wrap", s.wrap},
                                               {"bits", s.bits}});
    }
    if (s.function == "requantize")
      body = vhdl::expand(requantizeBodyTemplate, {{"convert", convert}});
    else if (s.function == "clamp")
      body = vhdl::expand(clampBodyTemplate, {{"convert", convert}});
    else
      body = vhdl::expand(hardsigmoidBodyTemplate, {{"fi", s.inFrac},
                                                    {"e", s.e},
                                                    {"j", s.j},
                                                    {"mb", s.mb},
                                                    {"magic", s.magic},
                                                    {"magb", s.magicBits},
                                                    {"mshift", s.magicShift},
                                                    {"rounding", s.rounding}});
    return use() +
           stageEntity(entity,
                       "Layer " + name + ": " + comment +
                           ", one register stage.",
                       s.width, s.width) +
           vhdl::expand(elementwiseTemplate, {{"width", s.width},
                                              {"lo", s.lo},
                                              {"hi", s.hi},
                                              {"body", body}});
  }

  /// One entity for every fork: each reader takes the beat once; the
  /// producer moves on when all have.
  void emitFork() {
    files.push_back(
        {fork + ".vhd", header + vhdl::expand(forkTemplate, {{"fork", fork}})});
  }

  /// Computes a pool stage's schedule: nothing is printed here.
  PoolSchedule preparePool(PoolOp op) {
    PoolSchedule s;
    s.width = op.getWidth();
    s.inLen = op.getInBeats();
    s.outLen = op.getOutBeats();
    s.kernel = op.getKernel();
    s.stride = op.getStride();
    s.padding = op.getPadding();
    s.isMax = op.getFunction() == "max";
    s.includePad = op.getCountIncludePad();
    s.rounding = roundingCode(op.getRounding());
    s.rows2 = int64_t(llvm::PowerOf2Ceil(s.inLen));
    // two banks of rows2 rows (the memory as declared)
    s.bufferBits = 2 * s.rows2 * s.width * design.getDataBits();
    return s;
  }

  /// Max or average pooling: a buffer of the whole input, one output
  /// position per cycle once its window has arrived; window bounds and
  /// divisor come from the position counter.
  std::string printPool(const PoolSchedule &s, PoolOp op, StringRef entity) {
    return use() +
           stageEntity(entity,
                       "Layer " + op.getSymName() + ": " + op.getFunction() +
                           " pooling, kernel " + Twine(s.kernel) + ", stride " +
                           Twine(s.stride) + ", padding " + Twine(s.padding) +
                           ".",
                       s.width, s.width) +
           vhdl::expand(poolTemplate, {{"ch", s.width},
                                       {"in_len", s.inLen},
                                       {"out_len", s.outLen},
                                       {"ksize", s.kernel},
                                       {"stride", s.stride},
                                       {"pad", s.padding},
                                       {"is_max", s.isMax},
                                       {"include_pad", s.includePad},
                                       {"rounding", s.rounding},
                                       {"rows2", s.rows2}});
  }

  /// Computes a join stage's schedule from its FIFO depths: nothing is
  /// printed here.
  JoinSchedule prepareJoin(JoinOp op, ArrayRef<int64_t> depths) {
    JoinSchedule s;
    s.function = op.getFunction().str();
    int64_t offset = 0;
    for (auto [w, b, d] :
         llvm::zip(op.getInWidths(), op.getInBeats(), depths)) {
      s.inputs.push_back({w, b, d, fifoSlots(d), offset});
      offset += w;
    }
    s.outWidth = op.getOutWidth();
    s.maxBeats = *llvm::max_element(op.getInBeats());
    s.wrap = op.getOverflow() == "wrap";
    s.bits = op.getBits().value_or(design.getDataBits());
    s.bufferBits = 0;
    for (const JoinSchedule::Input &in : s.inputs)
      s.bufferBits += in.width * in.slots * design.getDataBits();
    // concat_length sends its inputs one after the other
    s.serialBeats = s.function == "concat_length" ? op.getOutBeats() : 0;
    return s;
  }

  /// Prints a join stage from its schedule: an add or concat, one FIFO per
  /// input, one output register.
  std::string printJoin(const JoinSchedule &s, StringRef name,
                        StringRef entity) {
    std::string ports, decls, ready, resets, pushes, available, data;
    size_t n = s.inputs.size();
    bool serial = s.function == "concat_length";
    for (size_t i = 0; i < n; ++i) {
      const JoinSchedule::Input &in = s.inputs[i];
      ports +=
          vhdl::expand(joinPortTemplate, {{"i", i}, {"last", in.width - 1}});
      decls += vhdl::expand(joinFifoTemplate, {{"i", i},
                                               {"beats", in.beats},
                                               {"slots", in.slots},
                                               {"last", in.width - 1}});
      ready += vhdl::expand(joinReadyTemplate, {{"i", i}});
      resets += vhdl::expand(joinResetTemplate, {{"i", i}});
      std::string pop =
          serial ? "fire = '1' and part = " + std::to_string(i) : "fire = '1'";
      pushes += vhdl::expand(joinPushTemplate, {{"i", i}, {"pop", pop}});
      std::string vis = "vis" + std::to_string(i) + " > 0";
      if (serial) {
        available += (i ? " or " : "") +
                     ("(part = " + std::to_string(i) + " and " + vis + ")");
        data +=
            vhdl::expand(joinPartTemplate, {{"i", i}, {"next", (i + 1) % n}});
      } else {
        available += (i ? " and " : "") + vis;
        if (s.function == "concat_channels")
          data += vhdl::expand(
              joinLanesTemplate,
              {{"i", i}, {"lo", in.offset}, {"hi", in.offset + in.width - 1}});
      }
    }
    if (s.function == "add")
      data =
          vhdl::expand(joinAddTemplate, {{"wrap", s.wrap}, {"bits", s.bits}});
    return use() + vhdl::expand(joinTemplate, {{"name", name.str()},
                                               {"function", s.function},
                                               {"inputs", n},
                                               {"entity", entity.str()},
                                               {"ports", ports},
                                               {"out_last", s.outWidth - 1},
                                               {"out_w", s.outWidth},
                                               {"decls", decls},
                                               {"last_part", n - 1},
                                               {"last_sent", s.maxBeats - 1},
                                               {"ready", ready},
                                               {"available", available},
                                               {"resets", resets},
                                               {"pushes", pushes},
                                               {"data", data}});
  }

  /// Computes the top level's wiring: nothing is printed here.
  TopSchedule prepareTop() {
    TopSchedule s;
    auto sig = [](size_t i) { return "s" + std::to_string(i); };
    // valid and ready of every (consumer stage, port); stage -1 the output
    std::map<std::pair<int, int>, std::pair<std::string, std::string>> edge;
    for (size_t p = 0; p < consumers.size(); ++p) {
      size_t k = consumers[p].size();
      s.streams.push_back(
          {sig(p), producerWidth[p], k == 1 ? "" : "f" + std::to_string(p), k});
      if (k == 1) {
        edge[consumers[p][0]] = {sig(p) + "_valid", sig(p) + "_ready"};
        continue;
      }
      const std::string &f = s.streams.back().fork;
      for (size_t j = 0; j < k; ++j)
        edge[consumers[p][j]] = {f + "_valid(" + std::to_string(j) + ")",
                                 f + "_ready(" + std::to_string(j) + ")"};
    }
    size_t i = 0;
    for (Operation &stage : design.getBody().front()) {
      TopSchedule::Instance instance{entities[i], {}, sig(i + 1)};
      for (size_t port = 0; port < stageInputs[i].size(); ++port) {
        auto [valid, ready] = edge[{int(i), int(port)}];
        instance.ports.push_back(
            {isa<JoinOp>(stage) ? "in" + std::to_string(port) : "in", valid,
             ready, sig(stageInputs[i][port])});
      }
      s.instances.push_back(std::move(instance));
      ++i;
    }
    std::tie(s.outValid, s.outReady) = edge[{-1, 0}];
    s.outStream = sig(outputProducer);
    return s;
  }

  /// Prints the top level from its wiring.
  std::string printTop(const TopSchedule &s) {
    int64_t n = design.getDataBits();
    std::string decls, body;
    for (const TopSchedule::Stream &stream : s.streams) {
      decls += vhdl::expand(topStreamTemplate,
                            {{"s", stream.name}, {"last", stream.width - 1}});
      if (stream.fork.empty())
        continue;
      decls += vhdl::expand(topForkSignalsTemplate,
                            {{"f", stream.fork}, {"last", stream.readers - 1}});
      body += vhdl::expand(topForkTemplate, {{"f", stream.fork},
                                             {"fork", fork},
                                             {"outs", stream.readers},
                                             {"s", stream.name}});
    }
    for (size_t i = 0; i < s.instances.size(); ++i) {
      const TopSchedule::Instance &instance = s.instances[i];
      std::string ports;
      for (const TopSchedule::Port &port : instance.ports)
        ports += vhdl::expand(topPortTemplate, {{"prefix", port.prefix},
                                                {"valid", port.valid},
                                                {"ready", port.ready},
                                                {"source", port.source}});
      body += vhdl::expand(topInstanceTemplate, {{"i", i},
                                                 {"entity", instance.entity},
                                                 {"ports", ports},
                                                 {"s", instance.out}});
    }
    return use() + vhdl::expand(topTemplate,
                                {{"design", design.getSymName().str()},
                                 {"in_w", design.getInWidth()},
                                 {"out_w", design.getOutWidth()},
                                 {"n", n},
                                 {"top", top},
                                 {"in_last", design.getInWidth() * n - 1},
                                 {"out_last", design.getOutWidth() * n - 1},
                                 {"decls", decls},
                                 {"in_lanes_last", design.getInWidth() - 1},
                                 {"body", body},
                                 {"out_valid", s.outValid},
                                 {"out_ready", s.outReady},
                                 {"out_lanes_last", design.getOutWidth() - 1},
                                 {"out_stream", s.outStream}});
  }

  void emitTestbench() {
    // prepare: the design's stream shapes; then print
    std::vector<vhdl::Field> fields = {
        {"design", design.getSymName().str()},
        {"values", design.getInWidth() * design.getInBeats()},
        {"tb", tb},
        {"n", design.getDataBits()},
        {"in_w", design.getInWidth()},
        {"in_beats", design.getInBeats()},
        {"out_w", design.getOutWidth()},
        {"out_beats", design.getOutBeats()},
        {"top", top}};
    std::string text = header + std::string("use std.textio.all;\n") +
                       vhdl::expand(testbenchTemplate, fields);
    files.push_back({tb + ".vhd", text});
  }

  /// The formats convert-nn-to-rtl recorded for a stage's layer (input,
  /// result, weight, accum, rounding, overflow) as a JSON object, or null.
  static std::string formatJson(Operation &stage) {
    auto format = stage.getAttrOfType<DictionaryAttr>("rtl.format");
    if (!format)
      return "null";
    std::string json;
    for (NamedAttribute field : format)
      if (auto text = dyn_cast<StringAttr>(field.getValue()))
        json += (json.empty() ? "{\"" : ", \"") + field.getName().str() +
                "\": \"" + text.getValue().str() + "\"";
    return json.empty() ? "null" : json + "}";
  }

  /// Static figures and the cycles of one inference (the cycle model,
  /// Timing.cpp), which the testbench checks (expect_latency).
  void emitReport() {
    int64_t multipliers = 0, constantMultipliers = 0, adders = 0, romBits = 0,
            bufferBits = 0, macs = 0, scheduled = 0, ideal = 0, depth = 0,
            serial = 0, tableBits = 0;
    // one beat per cycle in and out of the design
    int64_t interval = std::max(design.getInBeats(), design.getOutBeats());
    std::string stages;
    size_t i = 0;
    for (Operation &stage : design.getBody().front()) {
      int64_t m = 0, add = 0, bits = 0, buffer = 0, unitMacs = 0, lanes = 0,
              cycles = 0, tables = 0;
      std::string fifoJson; // a join's FIFO depths
      if (const std::optional<MacSchedule> &s = schedules[i]) {
        lanes = m = s->multipliers;
        bits = s->romBits;
        unitMacs = s->macs;
        cycles = s->macCycles;
        add = s->treeAdders;
        buffer = s->bufferBits;
        ideal += s->idealCycles;
        tables = s->tableBits;
      }
      if (const std::optional<PoolSchedule> &s = pools[i])
        buffer = s->bufferBits;
      if (const std::optional<JoinSchedule> &s = joins[i]) {
        buffer = s->bufferBits;
        fifoJson =
            ", \"fifo_depths\": [" +
            llvm::join(llvm::map_range(s->inputs,
                                       [](const JoinSchedule::Input &in) {
                                         return std::to_string(in.depth);
                                       }),
                       ", ") +
            "]";
        serial += s->serialBeats;
      }
      int64_t constant = 0;
      if (const std::optional<ElementwiseSchedule> &s = elementwise[i])
        constant = s->constantMultipliers;
      constantMultipliers += constant;
      int64_t d = getPipelineDepth(&stage);
      // Every stage takes the next inference while it finishes the current
      // one (two banks, FIFOs): it is busy for the larger of its beats in,
      // its beats out and its MAC cycles per inference.
      StageStreams io = getStageStreams(&stage);
      int64_t ii = std::max(io.out.beats, cycles);
      for (const Stream &in : io.in)
        ii = std::max(ii, in.beats);
      interval = std::max(interval, ii);
      multipliers += m;
      adders += add;
      bufferBits += buffer;
      romBits += bits;
      tableBits += tables;
      macs += unitMacs;
      scheduled += cycles;
      depth += d;
      stages += llvm::formatv(
          R"({0}    {{"name": "{1}", "entity": "{2}", "kind": "{3}", )"
          R"("multipliers": {4}, "tree_adders": {9}, "rom_bits": {5}, )"
          R"("buffer_bits": {10}, "constant_multipliers": {11}, "macs": {6}, )"
          R"("mac_cycles": {7}, "pipeline_depth": {8}, "table_bits": {12}, )"
          R"("initiation_interval": {13}, "start": {15}, "latency": {16}{17}, )"
          R"("format": {14}})",
          i ? ",\n" : "",
          stage.getAttrOfType<StringAttr>("sym_name").getValue(), entities[i],
          stage.getName().stripDialect(), lanes, bits, unitMacs, cycles, d, add,
          buffer, constant, tables, ii, formatJson(stage), timing.stageStart[i],
          timing.stageLatency[i], fifoJson);
      ++i;
    }
    std::string fileList;
    for (const auto &[name, text] : files)
      fileList += (fileList.empty() ? "\"" : ", \"") + name + "\"";
    int64_t length = design.getInBeats();
    int64_t forks = llvm::count_if(
        consumers, [](const auto &readers) { return readers.size() > 1; });
    files.push_back(
        {"report.json",
         llvm::formatv(
             R"({{
  "design": "{0}",
  "top": "{1}",
  "testbench": "{2}",
  "files": [{3}],
  "data_bits": {4},
  "frac_bits": {5},
  "input": {{"width": {6}, "beats": {7}},
  "output": {{"width": {8}, "beats": {9}},
  "multipliers": {10},
  "tree_adders": {18},
  "rom_bits": {11},
  "table_bits": {22},
  "buffer_bits": {19},
  "constant_multipliers": {20},
  "forks": {21},
  "macs": {12},
  "pipeline_depth": {13},
  "mac_cycles": {14},
  "cycle_bound": {15},
  "scheduled_bound": {16},
  "latency": {24},
  "initiation_interval": {23},
  "stages": [
{17}
  ]
}
)",
             design.getSymName(), top, tb, fileList, design.getDataBits(),
             design.getFracBits(), design.getInWidth(), length,
             design.getOutWidth(), design.getOutBeats(), multipliers, romBits,
             macs, depth, scheduled, ideal + depth + length + serial,
             scheduled + depth + length + serial, stages, adders, bufferBits,
             constantMultipliers, forks, tableBits, interval,
             timing.cycles.front())
             .str()});
  }

  /// Sizes every join FIFO by the lag between its branches: the cycle model
  /// runs the design with FIFOs of the rtl.join's depth (at least an
  /// inference), inferences one at a time and back to back; a FIFO then
  /// gets a depth of the most beats it held when it took one, plus one,
  /// plus the design's pipeline depth (registers that may hold beats of the
  /// branch under backpressure), within [2, that depth] (and fifoSlots'
  /// slot for the beat pushed in the cycle before). The model then runs again
  /// with the new depths and must give the same cycles. Sets `timing` to
  /// one inference alone; false (and `error`) when the schedule deadlocks.
  bool sizeFifos(ArrayRef<const vhdl::MacCounters *> macs) {
    int64_t margin = 1;
    for (Operation &stage : design.getBody().front()) {
      margin += getPipelineDepth(&stage);
      fifoDepths.emplace_back();
      if (auto join = dyn_cast<JoinOp>(stage))
        fifoDepths.back().assign(join.getFifoDepths().begin(),
                                 join.getFifoDepths().end());
    }
    vhdl::Drive alone, backToBack;
    alone.inferences = 2;
    backToBack.inferences = 4;
    backToBack.backToBack = true;
    auto simulate = [&](const vhdl::Drive &drive) {
      std::vector<std::vector<int64_t>> slots = fifoDepths;
      for (std::vector<int64_t> &stage : slots)
        for (int64_t &d : stage)
          d = fifoSlots(d);
      vhdl::Timing t = vhdl::simulateTiming(design, macs, slots, drive);
      if (!t.deadlock.empty())
        error = "the design's schedule deadlocks (" + t.deadlock + ")";
      return t;
    };
    vhdl::Timing wide = simulate(alone), wideB2B = simulate(backToBack);
    if (!error.empty())
      return false;
    for (size_t s = 0; s < fifoDepths.size(); ++s)
      for (size_t i = 0; i < fifoDepths[s].size(); ++i)
        fifoDepths[s][i] = std::clamp<int64_t>(
            std::max(wide.fifoPeak[s][i], wideB2B.fifoPeak[s][i]) + margin, 2,
            fifoDepths[s][i]);
    timing = simulate(alone);
    vhdl::Timing sizedB2B = simulate(backToBack);
    if (!error.empty())
      return false;
    if (timing.cycles != wide.cycles || sizedB2B.cycles != wideB2B.cycles ||
        sizedB2B.intervals != wideB2B.intervals) {
      error = "sizing the join FIFOs changed the schedule (an emitter bug)";
      return false;
    }
    return true;
  }

  Files run() {
    // Prepare every stage's schedule, then print.
    for (Operation &stage : design.getBody().front()) {
      schedules.emplace_back();
      pools.emplace_back();
      elementwise.emplace_back();
      if (auto unit = dyn_cast<MacUnitOp>(stage))
        schedules.back() = prepareMac(unit);
      else if (auto pool = dyn_cast<PoolOp>(stage))
        pools.back() = preparePool(pool);
      else if (auto ew = dyn_cast<ElementwiseOp>(stage))
        elementwise.back() = prepareElementwise(ew);
    }
    std::vector<const vhdl::MacCounters *> macs;
    for (const std::optional<MacSchedule> &s : schedules)
      macs.push_back(s ? &*s : nullptr);
    if (!sizeFifos(macs))
      return files;
    size_t i = 0;
    for (Operation &stage : design.getBody().front()) {
      joins.emplace_back();
      if (auto join = dyn_cast<JoinOp>(stage))
        joins.back() = prepareJoin(join, fifoDepths[i]);
      ++i;
    }
    TopSchedule wiring = prepareTop();
    emitPackage();
    i = 0;
    for (Operation &stage : design.getBody().front()) {
      if (auto unit = dyn_cast<MacUnitOp>(stage))
        files.push_back(
            {entities[i] + ".vhd",
             printMac(*schedules[i], unit.getSymName(), entities[i])});
      else if (auto join = dyn_cast<JoinOp>(stage))
        files.push_back({entities[i] + ".vhd",
                         printJoin(*joins[i], join.getSymName(), entities[i])});
      else if (auto pool = dyn_cast<PoolOp>(stage))
        files.push_back(
            {entities[i] + ".vhd", printPool(*pools[i], pool, entities[i])});
      else
        files.push_back(
            {entities[i] + ".vhd",
             printElementwise(*elementwise[i],
                              cast<ElementwiseOp>(stage).getSymName(),
                              entities[i])});
      ++i;
    }
    if (!fork.empty())
      emitFork();
    files.push_back({top + ".vhd", printTop(wiring)});
    emitTestbench();
    emitReport();
    return files;
  }
};

/// Writes every file into `dir` or nothing: the files are staged in a
/// temporary directory beside it, then renamed into place.
bool writeDirectory(StringRef dir, const Files &files, std::string &error) {
  std::string base = dir.rtrim('/').str();
  if (base.empty())
    base = "/";
  std::string pattern = base + ".tmp-XXXXXX";
  if (!::mkdtemp(pattern.data())) {
    error = "cannot create a staging directory: " +
            std::string(std::strerror(errno));
    return false;
  }
  std::string staging = pattern;
  auto cleanUp = [&] {
    for (const auto &file : files)
      std::remove((staging + "/" + file.first).c_str());
    ::rmdir(staging.c_str());
    return false;
  };
  for (const auto &[name, text] : files) {
    std::error_code ec;
    llvm::raw_fd_ostream os(staging + "/" + name, ec);
    if (!ec) {
      os << text;
      os.close();
      ec = os.error();
    }
    if (ec) {
      error = "cannot write '" + name + "': " + ec.message();
      return cleanUp();
    }
  }
  if (::rename(staging.c_str(), base.c_str()) == 0) {
    ::chmod(
        base.c_str(), 0777 & ~[] {
          mode_t mask = ::umask(0);
          ::umask(mask);
          return mask;
        }());
    return true;
  }
  // An existing directory: replace our files in it, leave the rest alone.
  if (!llvm::sys::fs::is_directory(base)) {
    error = "'" + base + "' is not a directory";
    return cleanUp();
  }
  // Whatever can fail is checked before the first rename, so that the
  // renames (which replace files atomically) are all that is left.
  for (const auto &file : files)
    if (llvm::sys::fs::is_directory(base + "/" + file.first)) {
      error = "'" + base + "/" + file.first + "' is a directory";
      return cleanUp();
    }
  for (const auto &file : files)
    if (::rename((staging + "/" + file.first).c_str(),
                 (base + "/" + file.first).c_str()) != 0) {
      error = "cannot move '" + file.first +
              "' into place: " + std::strerror(errno);
      return cleanUp();
    }
  ::rmdir(staging.c_str());
  return true;
}
} // namespace

LogicalResult unum::translateRTLToVHDL(Operation *op, StringRef outputDir,
                                       raw_ostream &os) {
  SmallVector<DesignOp> designs;
  op->walk([&](DesignOp design) { designs.push_back(design); });
  if (designs.size() != 1)
    return op->emitError() << "--to-vhdl needs exactly one rtl.design, found "
                           << designs.size()
                           << " (run convert-nn-to-rtl first)";
  Emitter emitter(designs.front());
  Files files = emitter.run();
  if (!emitter.error.empty())
    return designs.front().emitError() << "--to-vhdl: " << emitter.error;
  if (outputDir.empty()) {
    for (const auto &[name, text] : files)
      os << "-- file: " << name << "\n" << text;
    return success();
  }
  std::string error;
  if (!writeDirectory(outputDir, files, error))
    return designs.front().emitError()
           << "cannot write '" << outputDir << "': " << error;
  return success();
}

void unum::registerVHDLTranslation() {
  static TranslateFromMLIRRegistration toVhdl(
      "to-vhdl", "emit an rtl.design as VHDL-2008 with a testbench",
      [](Operation *op, raw_ostream &os) {
        return translateRTLToVHDL(op, getOutputDirOption(), os);
      },
      [](DialectRegistry &registry) {
        // nn too, so that a model not yet lowered gets a useful error.
        registry.insert<rtl::RTLDialect, nn::NNDialect>();
        quietOpDiagnostics(registry);
      });
}
