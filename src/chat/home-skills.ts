/** One skill on the App Home: enabled everywhere, or only in some channels (their ids on the person's platform). */
export interface HomeSkill {
  readonly name: string;
  readonly description: string;
  /** Null: in every channel; else the channel ids where it is enabled. */
  readonly channels: readonly string[] | null;
}

/** The Skills section of the App Home (DESIGN.md "Skills"): what Errand knows how to do here, and for admins what needs a look. */
export interface HomeSkills {
  readonly enabled: readonly HomeSkill[];
  /** For admins: skills held back (changed since approved, malformed, missing), with where to see why; null when none or not an admin. */
  readonly attention: string | null;
}
