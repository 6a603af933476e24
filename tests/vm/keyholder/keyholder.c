// SPDX-License-Identifier: GPL-2.0
/*
 * keyholder: test-harness only, never shipped.  Holds one reference on
 * the preempt notifiers' static key for as long as it is loaded, which
 * vmrun.sh's guest init does at boot, before any test.
 *
 * Why: cosched.ko takes that key (preempt_notifier_inc()) at load and
 * drops it at unload; when the count crosses zero the kernel live-patches
 * __schedule() through int3 (text_poke_bp).  QEMU's multi-threaded TCG can
 * let the other vCPU run a stale translation holding the int3 after the
 * patch is done, and the guest dies with "Oops: int3" in __schedule():
 * seen in CI on 6.12 and in the 6.12 debug kernel, both while the sysfs
 * test reloaded the module.  With the key held from boot the count never
 * crosses zero, and loading cosched.ko patches no kernel text.  Real
 * hardware and KVM do not need this.
 */
#include <linux/module.h>
#include <linux/preempt.h>

static int __init keyholder_init(void)
{
	preempt_notifier_inc();
	return 0;
}

static void __exit keyholder_exit(void)
{
	preempt_notifier_dec();
}

module_init(keyholder_init);
module_exit(keyholder_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test harness: keep the preempt notifier key on (QEMU TCG)");
