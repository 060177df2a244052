# wasp — build with `make`, test with `make check`.
# Outputs: build/bin/wasp (the command), build/lib/libwasp.so (the JVMTI agent).

CC      ?= cc
JAVA_HOME ?= $(shell dirname $$(dirname $$(readlink -f $$(command -v javac))))
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -fPIC -Wall -Wextra -Werror -fvisibility=hidden \
           -I src -I $(B)/gen -I $(JAVA_HOME)/include -I $(JAVA_HOME)/include/linux
LDLIBS_CORE  = -lZydis -lZycore -lz -lm -lrt
LDLIBS_CLI   = -lprotobuf-c   # --format pprof
LDLIBS_AGENT = $(LDLIBS_CORE) -lnuma -ldl -lpthread -lrt -ldw -lelf   # libpfm4 is dlopened when a PMU is used; elfutils names native code

B = build
.DEFAULT_GOAL := all
# Every sampler: the agent samples with them and `wasp doctor` proves them
# the same way (the PMU's libpfm4 is dlopened, so it adds no library).
SHARED_SAMPLE_SRCS := $(wildcard src/sample/*.c)
# An analysis folder src/analysis/NAME/ holds agent*.c (agent only), report*.c
# (the command only) and anything else (shared): docs/design.md, "adding an analysis".
ANALYSIS_AGENT_SRCS  := $(wildcard src/analysis/*/agent*.c)
ANALYSIS_REPORT_SRCS := $(wildcard src/analysis/*/report*.c)
ANALYSIS_CORE_SRCS   := $(filter-out $(ANALYSIS_AGENT_SRCS) $(ANALYSIS_REPORT_SRCS),\
                          $(wildcard src/catalog/*.c src/analysis/*/*.c))
# Code that needs a JVM (JVMTI glue) or runs only inside the agent.
AGENT_SRCS := $(filter-out src/agent/option%.c,$(wildcard src/agent/*.c)) $(ANALYSIS_AGENT_SRCS)
# Everything the command, the agent and the unit tests share.
CORE_SRCS  := $(wildcard src/common/*.c src/isa/*.c src/profile/*.c src/watch/*.c src/heap/*.c) \
              $(ANALYSIS_CORE_SRCS) $(wildcard src/agent/option*.c) $(SHARED_SAMPLE_SRCS)
# The command's code, a library (libwaspcli.a) that build/bin/wasp and the unit
# tests link; wasp.c holds only main.
CLI_MAIN   := src/cli/commands/wasp.c
# C generated from the .proto files by protoc-c (build/gen/, not in git).
PROTO_SRCS := $(wildcard src/cli/*/*.proto)
GEN_SRCS   := $(patsubst src/%.proto,$(B)/gen/%.pb-c.c,$(PROTO_SRCS))
CLI_SRCS   := $(filter-out $(CLI_MAIN),$(wildcard src/cli/*/*.c)) $(ANALYSIS_REPORT_SRCS) $(GEN_SRCS)
UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
# The HTML report's CSS and JS, included by the assembler (.incbin): the
# compiler's dependency files do not list them.
$(B)/obj/src/cli/render/html_assets.o $(B)/fuzz/obj/src/cli/render/html_assets.o: \
    $(wildcard src/cli/html/*.css src/cli/html/*.js)
# Likewise an analysis's section script (src/analysis/NAME/report.js, in its report_html.c).
$(patsubst %.c,$(B)/obj/%.o,$(wildcard src/analysis/*/report_html.c)) \
$(patsubst %.c,$(B)/fuzz/obj/%.o,$(wildcard src/analysis/*/report_html.c)): \
    $(wildcard src/analysis/*/report.js)

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
CORE_OBJS  := $(call obj,$(CORE_SRCS))
AGENT_OBJS := $(call obj,$(AGENT_SRCS))
CLI_OBJS   := $(call obj,$(CLI_SRCS))
UNIT_OBJS  := $(call obj,$(UNIT_SRCS))
UNIT_BINS  := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))

.PHONY: all check layers unit integration workloads bench bench-render bench-fault demo clean
all: $(B)/bin/wasp $(B)/lib/libwasp.so workloads

# `make V=1` shows the full commands.
Q = $(if $(V),,@)
$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(V),,@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/gen/%.pb-c.c $(B)/gen/%.pb-c.h: src/%.proto
	@mkdir -p $(B)/gen
	$(if $(V),,@echo "  PROTOC  $<")
	$(Q)protoc-c --c_out=$(B)/gen --proto_path=src $<
# Sources that include a generated header (-MMD knows only after a first build).
$(B)/obj/src/cli/render/render_pprof.o $(B)/fuzz/obj/src/cli/render/render_pprof.o \
    $(B)/obj/tests/unit/test_render_collapsed.o: $(B)/gen/cli/pprof/profile.pb-c.h

# Archives are rebuilt from scratch: a renamed or deleted source must leave no
# stale member behind to define a symbol twice or an old version of it.
$(B)/lib/libwaspcore.a: $(CORE_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/lib/libwasp.so: $(AGENT_OBJS) $(B)/lib/libwaspcore.a
	$(CC) -shared -o $@ $(AGENT_OBJS) $(B)/lib/libwaspcore.a $(LDLIBS_AGENT)

$(B)/lib/libwaspcli.a: $(CLI_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/bin/wasp: $(call obj,$(CLI_MAIN)) $(B)/lib/libwaspcli.a $(B)/lib/libwaspcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS_CLI) $(LDLIBS_CORE)

# A unit test links the libraries the command links. A test replaces code only
# through a seam the code offers (e.g. cli/commands/run_internal.h): every library
# member is linked (--whole-archive), so a test that defines a symbol the
# libraries define fails to link instead of silently replacing it.
$(UNIT_BINS): $(B)/tests/%: $(B)/obj/tests/unit/%.o $(B)/lib/libwaspcli.a $(B)/lib/libwaspcore.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TEST_LDFLAGS) -Wl,--whole-archive $(B)/lib/libwaspcli.a \
	    $(B)/lib/libwaspcore.a -Wl,--no-whole-archive -lcmocka $(LDLIBS_CLI) $(LDLIBS_CORE) -lpthread
# The NUMA check's system calls answer what the test chooses (one-node machines).
$(B)/tests/test_objects_attribute: TEST_LDFLAGS := -Wl,--wrap=syscall
# The safe writer's fsync, between writing the temporary and the rename, is
# where the test changes what the name holds (a race made deterministic).
$(B)/tests/test_safe_open: TEST_LDFLAGS := -Wl,--wrap=fsync
# The agent's pure type-name code (the agent's objects are not in the libraries).
$(B)/tests/test_java_type_name: $(B)/obj/src/agent/java_type_name.o
$(B)/tests/test_java_type_name: TEST_LDFLAGS := $(B)/obj/src/agent/java_type_name.o
# Native symbols are the agent's (elfutils is linked into the agent only).
$(B)/tests/test_native_symbols: $(B)/obj/src/agent/native_symbols.o $(B)/obj/src/agent/elf_functions.o
$(B)/tests/test_native_symbols: TEST_LDFLAGS := $(B)/obj/src/agent/native_symbols.o \
    $(B)/obj/src/agent/elf_functions.o -ldw -lelf -ldl

# A stripped library with its symbols in a separate debug file, laid out as
# Debian's -dbg packages do (DEBUGROOT/.build-id/ab/cdef....debug).
$(B)/tests/test_native_symbols: $(B)/tests/libstripped.so
$(B)/tests/libstripped.so: tests/unit/fixtures/stripped_lib.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -fPIC -O1 -g -Wall -Wextra -Werror -Wl,--build-id -o $@.full $<
	$(Q)id=$$(readelf -n $@.full | sed -n 's/.*Build ID: *//p'); \
	    dir=$(B)/tests/debugroot/.build-id/$$(echo $$id | cut -c1-2); \
	    mkdir -p $$dir && objcopy --only-keep-debug $@.full $$dir/$$(echo $$id | cut -c3-).debug
	$(Q)objcopy --strip-all $@.full $@ && rm -f $@.full

# Java workloads with planted inefficiencies (ground truth for the tests).
WORKLOAD_SRCS := $(wildcard tests/workloads/*.java examples/*.java)
workloads: $(B)/workloads/.stamp
$(B)/workloads/.stamp: $(WORKLOAD_SRCS)
	@mkdir -p $(dir $@)
	$(if $(WORKLOAD_SRCS),$(JAVA_HOME)/bin/javac --release 17 -g -d $(B)/workloads $(WORKLOAD_SRCS))
	@touch $@

unit: $(UNIT_BINS)
	@sh tests/unit/run.sh $(UNIT_BINS)

# Fault-injection fixture for the integration tests.
$(B)/tests/noperf.so: tests/integration/noperf.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -fPIC -O2 -Wall -Wextra -Werror -o $@ $< -ldl

# A container's seccomp profile: perf_event_open refused, for PROGRAM and its children.
$(B)/tests/seccomp_launcher: tests/integration/seccomp_launcher.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $< -lseccomp

# Stand-in agent for the attach/detach tests (records the options it gets).
$(B)/tests/fake_agent.so: tests/integration/fake_agent.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -fPIC -O2 -Wall -Wextra -Werror -o $@ $<

# Another library's initial-exec TLS, taking most of glibc's static surplus
# (tests/integration/static_tls.py).
$(B)/tests/static_tls_filler.so: tests/integration/static_tls_filler.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -fPIC -O2 -Wall -Wextra -Werror -o $@ $<

# A JNI library whose native code stores into a Java array (NativeStore.java):
# frame pointers kept, so that its frames can be walked into the Java caller.
$(B)/tests/libnative_store.so: tests/jni/native_store.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -fPIC -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror \
	    -I $(JAVA_HOME)/include -I $(JAVA_HOME)/include/linux -o $@ $<

integration: all $(B)/tests/noperf.so $(B)/tests/fake_agent.so $(B)/tests/seccomp_launcher \
             $(B)/tests/libnative_store.so $(B)/tests/static_tls_filler.so
	@python3 tests/integration/run.py

# Fuzzing (docs/testing.md, "Fuzzing"): the profile decoder under libFuzzer
# with ASan and UBSan (Debian's clang and libclang-rt-14-dev), and garbage
# agent options on `java -version`. Its own objects, built by clang. clang
# (unlike gcc) counts a table row's trailing fields left to zero as missing:
# the views' column tables (cli/render/view.h) rely on that zeroing.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror \
                -Wno-missing-field-initializers \
                -I src -I $(B)/gen -I $(JAVA_HOME)/include -I $(JAVA_HOME)/include/linux \
                $(FUZZ_SAN) -fsanitize=fuzzer-no-link
fuzzobj = $(patsubst %.c,$(B)/fuzz/obj/%.o,$(1))

$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(V),,@echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

# The command's reading and rendering code, instrumented; the linker takes
# the members the harness needs.
FUZZ_LIB_SRCS := $(wildcard src/common/*.c src/profile/*.c) src/heap/heap_area_names.c \
                 $(ANALYSIS_CORE_SRCS) $(CLI_SRCS)
$(B)/fuzz/libwasp.a: $(call fuzzobj,$(FUZZ_LIB_SRCS))
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/fuzz/fuzz_profile: $(call fuzzobj,tests/fuzz/fuzz_profile.c) $(B)/fuzz/libwasp.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS_CLI) $(LDLIBS_CORE)

.PHONY: fuzz fuzz-profile fuzz-options
fuzz: fuzz-profile fuzz-options

fuzz-profile: $(B)/fuzz/fuzz_profile $(B)/bin/wasp
	@sh tests/fuzz/run-profile.sh $(B)/fuzz/fuzz_profile $(FUZZ_SECONDS) $(B)/bin/wasp

fuzz-options: $(B)/bin/wasp $(B)/lib/libwasp.so
	@python3 tests/fuzz/agent_options.py

# No #include cycle between the folders of src/ (docs/design.md, "Include layers").
layers:
	@python3 tests/include_layers.py

check: layers all unit integration fuzz

bench: all
	@python3 bench/overhead.py

# Rendering speed and size of every report format on a large synthetic profile.
$(B)/bench/large_profile: bench/large_profile.c $(B)/lib/libwaspcore.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(B)/lib/libwaspcore.a $(LDLIBS_CORE)
bench-render: all $(B)/bench/large_profile
	@python3 bench/render.py

# The kernel's own cost of a fault on a protected page (the page engine's floor).
$(B)/bench/fault_round_trip: bench/fault_round_trip.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $<
bench-fault: $(B)/bench/fault_round_trip
	@$(B)/bench/fault_round_trip

# Profile the bundled example and print the report. Where debug registers do
# not trap (`wasp doctor`), wasp watches with page protection, which arms a few
# samples a second (docs/corpus.md): the example then runs twenty times as many
# rounds, about a minute, so that its report rests on 20 or more.
DEMO_ROUNDS = 120000
DEMO_ROUNDS_PAGE = 2400000
demo: all
	@rounds=$(DEMO_ROUNDS); \
	if $(B)/bin/wasp doctor --json 2>/dev/null | python3 -c 'import json, sys; \
	    sys.exit(json.load(sys.stdin)["would_use"]["watch"] != "page")' 2>/dev/null; then \
	  rounds=$(DEMO_ROUNDS_PAGE); \
	  echo "make demo: this machine's debug registers do not trap, so wasp watches with page" \
	       "protection, which arms a few samples a second: the example runs for about a minute"; \
	fi; \
	echo "$(B)/bin/wasp run -- $(JAVA_HOME)/bin/java -cp $(B)/workloads WastefulExample $$rounds"; \
	$(B)/bin/wasp run -- $(JAVA_HOME)/bin/java -cp $(B)/workloads WastefulExample $$rounds

clean:
	rm -rf $(B)

-include $(shell find $(B)/obj $(B)/fuzz/obj -name '*.d' 2>/dev/null)
