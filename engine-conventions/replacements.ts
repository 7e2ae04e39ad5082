/**
 * What one engine showed a provider process of each resource's recorded session, for that resource's
 * replacement. The engine hands a replacement's create nothing of the resource it replaces: it checks the
 * new inputs again without the recorded ones before a replacement (and without them from the start for
 * `--replace` and a tainted resource), and CreateRequest carries no old state (pulumi/pulumi v3.248.0,
 * pkg/resource/deploy/step_generator.go). What it does show, in the process that then creates the
 * replacement, is the recorded session itself: the resource's diff (an input's change), its read before
 * the update (refresh-before-update), its delete (delete-before-replace). Both fronts keep that here, per
 * resource and per engine, and hand it to the create and the delete in their typed requests; nothing else
 * of it is kept between calls. One process is shown nothing: the one the engine starts for a provider whose
 * settings changed in the update, after it read the sessions in the process of the recorded settings. The
 * plugin tells its creates that instead (core/controller.ts, settingsChanged).
 */
export class ShownSessions {
  private readonly byResource = new Map<string, { vmId: string; recorded?: Record<string, unknown> }>();
  private readonly handedOver = new Set<string>();

  /** The engine showed `vmId` as `resource`'s recorded session (a diff, a read or a delete of it), with what the state records of it. */
  shown(resource: string | undefined, vmId: string | undefined, recorded?: Record<string, unknown>): void {
    if (resource && vmId) this.byResource.set(resource, { vmId, recorded });
  }

  /** The recorded session a create of `resource` replaces, as the create's request takes it, when the engine showed it to this process. */
  replacement(resource: string | undefined): { replaces?: string; replacesRecord?: Record<string, unknown> } {
    const shown = resource ? this.byResource.get(resource) : undefined;
    return shown ? { replaces: shown.vmId, replacesRecord: shown.recorded } : {};
  }

  /** A create handed the engine `vmId`, a session an earlier run started under the same key. */
  handed(vmId: string): void {
    this.handedOver.add(vmId);
  }

  /** Whether a create of this engine handed the engine `vmId` (then its delete as a replaced session keeps it). */
  wasHanded(vmId: string): boolean {
    return this.handedOver.has(vmId);
  }
}
