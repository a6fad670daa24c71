# SPDX-License-Identifier: GPL-2.0
#
# dm-tier top-level Makefile.
#   make            userspace tools + dm-tier.ko for KDIR
#   make check      all tests (unit, KUnit, VM); ends with "N passed, N failed"
#   make check-crash  VM test 032 over every crash state of a long run (>= 200 flush points)
#   make check-long   the VM layer with the long variants of the heavy tests
#   make demo       boots the VM bench and shows dm-tier at work
# See README.md and docs/TESTING.md.

# Kbuild re-reads the Kbuild file, never this Makefile; guard anyway so that a
# stray "make -C $KDIR M=$PWD" never recurses into the rules below.
ifneq ($(KERNELRELEASE),)
include $(src)/Kbuild
else

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build
VERSION := $(shell sed -n 's/^\#define DM_TIER_VERSION_STRING "\(.*\)"/\1/p' include/uapi/linux/dm-tier-version.h)
DEPS_STAMP := $(BUILD)/.deps-ok

# KDIR: explicit, else the running kernel's build dir, else the newest Debian
# linux-headers-*-amd64 (tools/kdir says which it picked and why).
ifeq ($(origin KDIR),undefined)
# Computed on first use, once (tools/kdir may print a note).
KDIR = $(eval KDIR := $(shell tools/kdir))$(KDIR)
endif
KVER = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
# DM_TIER_DEBUG=1 (debug knobs, kernel/dm-tier-debug.h) builds apart.
KMOD_DIR = $(BUILD)/kmod$(if $(filter 1,$(DM_TIER_DEBUG)),-debug)/$(KVER)

CC ?= cc
AR ?= ar
# user/lib/tier-internal-user.h stands in for kernel/core/tier-internal.h, so
# that kernel/core/*.c build unchanged in userspace (docs/ARCHITECTURE.md).
# pkg-config's answers are taken on first use, once, never while make
# parses this file: on a fresh machine the libraries' -dev packages arrive
# with $(DEPS_STAMP), which every object waits for.
NL_CFLAGS = $(eval NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null))$(NL_CFLAGS)
USER_CFLAGS = -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-D_GNU_SOURCE -Iinclude/uapi -Iinclude -Ikernel/core -Iuser/lib \
	-include user/lib/tier-internal-user.h $(NL_CFLAGS)
# The usual CPPFLAGS/CFLAGS/LDFLAGS come last (packagers' hardening flags,
# debian/rules).
USER_CFLAGS += $(CPPFLAGS) $(CFLAGS)
USER_LDFLAGS := $(LDFLAGS)
CORE_SRCS := $(wildcard kernel/core/*.c)
LIB_SRCS := $(wildcard user/lib/*.c)
TIERCTL_SRCS := $(wildcard user/tierctl/*.c)
TIERD_SRCS := $(wildcard user/tierd/*.c)
CKPT_SRCS := $(wildcard user/ckpt/*.c)
LOGREPLAY_SRCS := $(wildcard user/logreplay/*.c)
# One object per source under build/user/obj/, each compiled once, with
# -MMD header dependencies.
USER_OBJ := $(BUILD)/user/obj
user_objs = $(patsubst %.c,$(USER_OBJ)/%.o,$(1))
LIBTIER := $(BUILD)/user/libtier.a
# libnvme's .pc requires json-c's, which Debian ships only with json-c-dev.
USER_LIBS = $(eval USER_LIBS := $(shell pkg-config --libs devmapper blkid libnl-genl-3.0 json-c 2>/dev/null) -lnvme)$(USER_LIBS)

.PHONY: uapi all user modules check check-long check-crash unit kunit vm-tests demo bench deps lint clean \
	install uninstall dkms-install dkms-build man completion help FORCE

all: user modules

help:
	@sed -n '3,8p' Makefile

deps: $(DEPS_STAMP)
$(DEPS_STAMP): tools/deps
	@tools/deps
	@mkdir -p $(BUILD) && touch $@

# ---- userspace -------------------------------------------------------------
user: $(BUILD)/user/tierctl $(BUILD)/user/ckpt $(BUILD)/user/dmt-logreplay $(if $(TIERD_SRCS),$(BUILD)/user/tierd)

$(USER_OBJ)/%.o: %.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -MMD -MP -c -o $@ $<
-include $(patsubst %.o,%.d,$(call user_objs,$(CORE_SRCS) $(LIB_SRCS) $(TIERCTL_SRCS) $(TIERD_SRCS) $(CKPT_SRCS)))

# libtier: user/lib plus the pure core, which every tool links.
$(LIBTIER): $(call user_objs,$(LIB_SRCS) $(CORE_SRCS))
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/user/tierctl: $(call user_objs,$(TIERCTL_SRCS)) $(LIBTIER)
	$(CC) $(USER_CFLAGS) $(USER_LDFLAGS) -o $@ $^ $(USER_LIBS)

# tierd: the policy daemon (docs/tierd.md).
$(BUILD)/user/tierd: $(call user_objs,$(TIERD_SRCS)) $(LIBTIER)
	$(CC) $(USER_CFLAGS) $(USER_LDFLAGS) -o $@ $^ $(USER_LIBS)

# The netlink uapi header is generated from its spec; `make lint` checks it.
uapi:
	tools/netlink/gen-uapi

# ckpt: checkpoint burst generator/verifier (docs/ckpt.md), io_uring; takes
# only the printer and the size units from libtier.
$(call user_objs,$(CKPT_SRCS)): USER_CFLAGS += -pthread
$(BUILD)/user/ckpt: $(call user_objs,$(CKPT_SRCS)) $(LIBTIER)
	$(CC) $(USER_CFLAGS) $(USER_LDFLAGS) -pthread -o $@ $^ $(shell pkg-config --libs liburing)

# dmt-logreplay: dm-log-writes log reader and replayer (VM test 032), plain
# C11, apart from libtier.
$(BUILD)/user/dmt-logreplay: $(LOGREPLAY_SRCS) $(wildcard user/logreplay/*.h)
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -o $@ $(LOGREPLAY_SRCS)

# ---- kernel module ---------------------------------------------------------
# Built in a per-kernel mirror of the sources so that objects for 6.1 and
# 6.12 never mix, and kernel/core/*.c stay free of kbuild droppings.
# KO_COPY=0 (the VM bench's builds, for its cached guest kernels) leaves the
# top-level dm-tier.ko, the one `make install` ships, as plain `make` made it.
modules: | $(DEPS_STAMP)
	@test -n "$(KVER)" || { echo "error: no kernel headers in '$(KDIR)'; run 'make deps' or pass KDIR=" >&2; exit 1; }
	@mkdir -p $(KMOD_DIR)
	@rsync -a --delete --include='*/' --include='*.[ch]' --include=Kbuild \
		--exclude='*' --prune-empty-dirs Kbuild kernel include $(KMOD_DIR)/
	$(MAKE) -C $(KDIR) M=$(KMOD_DIR) modules
# The debug build (DM_TIER_DEBUG=1) never replaces ./dm-tier.ko.
ifeq ($(if $(filter 1,$(DM_TIER_DEBUG)),0,$(KO_COPY)),0)
	@echo "built $(KMOD_DIR)/dm-tier.ko"
else
	@cp $(KMOD_DIR)/dm-tier.ko $(TOP)/dm-tier.ko
	@echo "built dm-tier.ko for $(KVER)"
endif

# ---- tests -----------------------------------------------------------------
unit: | $(DEPS_STAMP)
	@tests/unit/run

kunit: | $(DEPS_STAMP)
	@tests/kunit/run

vm-tests: modules
	@tests/vm/run

check: | $(DEPS_STAMP)
	@tools/check

# Every crash state of a long checkpoint workload (docs/TESTING.md, test 032):
# about 25 minutes under TCG (215 states of 306 flush points, measured).
check-crash: user | $(DEPS_STAMP)
	@DMT_CRASH_STATES=all DMT_VM_TEST_TIMEOUT=$${DMT_VM_TEST_TIMEOUT:-15000} tests/vm/run 032

# The VM layer with the long variants of the heavy tests (more power cuts,
# crash states and migration passes than `make check` runs; docs/TESTING.md).
check-long: user | $(DEPS_STAMP)
	@DMT_VM_LONG=1 tests/vm/run

demo: | $(DEPS_STAMP)
	@tools/demo

# Performance bench (docs/PERFORMANCE.md): BENCH_RUNS runs (default 3, the
# targets count only when met in all), one summary table; BENCH_ARGS=--quick
# for small sizes.
BENCH_RUNS ?= 3
bench: | $(DEPS_STAMP)
	@tools/bench/run --runs $(BENCH_RUNS) $(BENCH_ARGS)

lint: | $(DEPS_STAMP)
	@tools/lint

# ---- man pages and completion --------------------------------------------
# Generated from docs/ (tools/md2man), so the manual has one source.
MAN_PAGES := $(BUILD)/man/tierctl.8 $(BUILD)/man/tierd.8 $(BUILD)/man/tierd.conf.5 \
	$(BUILD)/man/dm-tier.7
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date +%F)
man: $(MAN_PAGES)
$(BUILD)/man/tierctl.8: docs/tierctl.md tools/md2man
	@mkdir -p $(@D)
	tools/md2man $< $@ --version $(VERSION) --date $(MAN_DATE)
$(BUILD)/man/%: docs/man/%.md docs/tierd.md docs/ARCHITECTURE.md docs/FORMAT.md tools/md2man
	@mkdir -p $(@D)
	tools/md2man $< $@ --version $(VERSION) --date $(MAN_DATE)

# Generated from tierctl's command table.
completion: $(BUILD)/completion/tierctl
$(BUILD)/completion/tierctl: $(BUILD)/user/tierctl
	@mkdir -p $(@D)
	$< completion bash >$@.tmp && mv $@.tmp $@

# ---- install ---------------------------------------------------------------
PREFIX ?= /usr/local
DESTDIR ?=
SYSTEMD_UNITDIR ?= /lib/systemd/system
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# What `make install` puts in place, for `make uninstall` (the module aside).
INSTALLED := $(PREFIX)/sbin/tierctl $(PREFIX)/sbin/tierd $(PREFIX)/bin/ckpt \
	$(SYSTEMD_UNITDIR)/tierd.service /usr/share/doc/dm-tier/tierd.conf.example \
	$(MANDIR)/man8/tierctl.8 $(MANDIR)/man8/tierd.8 $(MANDIR)/man5/tierd.conf.5 \
	$(MANDIR)/man7/dm-tier.7 $(BASHCOMPDIR)/tierctl
install: all man completion
	install -D -m 0755 $(BUILD)/user/tierctl $(DESTDIR)$(PREFIX)/sbin/tierctl
	install -D -m 0755 $(BUILD)/user/tierd $(DESTDIR)$(PREFIX)/sbin/tierd
	install -D -m 0755 $(BUILD)/user/ckpt $(DESTDIR)$(PREFIX)/bin/ckpt
	install -d $(DESTDIR)$(SYSTEMD_UNITDIR)
	sed 's|/usr/local/sbin/|$(PREFIX)/sbin/|g' dist/tierd.service \
		>$(DESTDIR)$(SYSTEMD_UNITDIR)/tierd.service
	install -D -m 0644 dist/tierd.conf.example \
		$(DESTDIR)/usr/share/doc/dm-tier/tierd.conf.example
	install -d -m 0755 $(DESTDIR)/etc/dm-tier/policies.d
	install -D -m 0644 $(BUILD)/man/tierctl.8 $(DESTDIR)$(MANDIR)/man8/tierctl.8
	install -D -m 0644 $(BUILD)/man/tierd.8 $(DESTDIR)$(MANDIR)/man8/tierd.8
	install -D -m 0644 $(BUILD)/man/tierd.conf.5 $(DESTDIR)$(MANDIR)/man5/tierd.conf.5
	install -D -m 0644 $(BUILD)/man/dm-tier.7 $(DESTDIR)$(MANDIR)/man7/dm-tier.7
	install -D -m 0644 $(BUILD)/completion/tierctl $(DESTDIR)$(BASHCOMPDIR)/tierctl
	install -D -m 0644 dm-tier.ko $(DESTDIR)/lib/modules/$(KVER)/updates/dm-tier.ko
	test -n "$(DESTDIR)" || depmod -a $(KVER)
	@tools/module-copies $(KVER) $(DESTDIR)

# Removes what `make install` installed (the module of KVER included); leaves
# /etc/dm-tier (configuration, recorded connections) and the DKMS copy.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/dm-tier.ko
	test -n "$(DESTDIR)" || depmod -a $(KVER)

# DKMS: copies the module sources to /usr/src/dm-tier-$(VERSION), then builds
# and installs for every kernel with headers (see docs/INSTALL.md). A version
# DKMS already knows is not added again; any other `dkms add` error stops.
DKMS_SRC := $(DESTDIR)/usr/src/dm-tier-$(VERSION)
dkms-install: | $(DEPS_STAMP)
	@tools/dkms-stage $(DKMS_SRC)
	@if dkms status -m dm-tier -v $(VERSION) 2>/dev/null | grep -q .; then \
		echo "dkms: dm-tier/$(VERSION) already added"; \
	else \
		dkms add -m dm-tier -v $(VERSION); \
	fi
	dkms build -m dm-tier -v $(VERSION) -k $(KVER)
	dkms install -m dm-tier -v $(VERSION) -k $(KVER) --force
	@tools/module-copies $(KVER) $(DESTDIR)

# make install also installs the boot-time activation units and the udev rule
# for members (docs/INSTALL.md), their tierctl path following PREFIX; a
# prerequisite added here, apart from the install recipe above.
UDEV_RULESDIR ?= /lib/udev/rules.d
BOOT_FILES := $(SYSTEMD_UNITDIR)/dm-tier-activate.service \
	$(SYSTEMD_UNITDIR)/dm-tier-activate-nvmf.service $(UDEV_RULESDIR)/61-dm-tier.rules
.PHONY: install-boot
install: install-boot
install-boot:
	install -d $(DESTDIR)$(SYSTEMD_UNITDIR) $(DESTDIR)$(UDEV_RULESDIR)
	for u in dm-tier-activate.service dm-tier-activate-nvmf.service; do \
		sed 's|/usr/local/sbin/|$(PREFIX)/sbin/|g' dist/$$u >$(DESTDIR)$(SYSTEMD_UNITDIR)/$$u; done
	sed 's|/usr/local/sbin/|$(PREFIX)/sbin/|g' dist/61-dm-tier.rules \
		>$(DESTDIR)$(UDEV_RULESDIR)/61-dm-tier.rules
uninstall: uninstall-boot
.PHONY: uninstall-boot
uninstall-boot:
	rm -f $(addprefix $(DESTDIR),$(BOOT_FILES))

# ---- packages (docs/INSTALL.md) -------------------------------------------
# make deb: dpkg-buildpackage (debian/) on a copy of the tree's files (git's
# tracked and untracked-but-not-ignored ones) in build/deb/src, so that
# nothing lands outside build/; the .debs go to build/deb/, then lintian
# (warnings fail; overrides are justified in debian/*.lintian-overrides).
# make rpm: rpmbuild -bb dist/dm-tier.spec on a tarball of the same files,
# output in build/rpm/RPMS/.
DEB_DIR := $(BUILD)/deb
PKG_FILES = git ls-files -co --exclude-standard
.PHONY: deb rpm
deb: | $(DEPS_STAMP)
	@rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src/dm-tier-$(VERSION)
	@$(PKG_FILES) | rsync -a --files-from=- ./ $(DEB_DIR)/src/dm-tier-$(VERSION)/
	@echo "dpkg-buildpackage (log: $(DEB_DIR)/build.log)"
	@cd $(DEB_DIR)/src/dm-tier-$(VERSION) && dpkg-buildpackage -b -us -uc -j2 >$(DEB_DIR)/build.log 2>&1 || \
		{ tail -n 40 $(DEB_DIR)/build.log >&2; echo "error: dpkg-buildpackage failed (full log: $(DEB_DIR)/build.log)" >&2; exit 1; }
	@mv $(DEB_DIR)/src/*.deb $(DEB_DIR)/src/*.changes $(DEB_DIR)/src/*.buildinfo $(DEB_DIR)/
	@rm -rf $(DEB_DIR)/src
	lintian --fail-on error,warning --info $(DEB_DIR)/*.changes
	@ls $(DEB_DIR)/*.deb

RPM_DIR := $(BUILD)/rpm
rpm: | $(DEPS_STAMP)
	@rm -rf $(RPM_DIR) && mkdir -p $(RPM_DIR)/SOURCES
	@$(PKG_FILES) | tar -cz --transform 's,^,dm-tier-$(VERSION)/,' -T - -f $(RPM_DIR)/SOURCES/dm-tier-$(VERSION).tar.gz
	rpmbuild -bb --define '_topdir $(RPM_DIR)' --nodeps dist/dm-tier.spec >$(RPM_DIR)/build.log 2>&1 || \
		{ tail -n 40 $(RPM_DIR)/build.log >&2; echo "error: rpmbuild failed (full log: $(RPM_DIR)/build.log)" >&2; exit 1; }
	@find $(RPM_DIR)/RPMS -name '*.rpm'

clean:
	rm -rf $(BUILD) dm-tier.ko

endif
