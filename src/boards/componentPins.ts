/** What boards need from the component registry. */
export interface ComponentPins {
  /**
   * Why a board may not pin the component a `config.components[]` entry names (its `url` and
   * optional `version`), or null: a URL of this registry names a published, undeleted version,
   * or the URL is not the registry's (the egress rules judge those). `gone`: the version was deleted.
   */
  pinProblem(url: string, version: string | undefined): Promise<{ gone: boolean; message: string } | null>;
}
