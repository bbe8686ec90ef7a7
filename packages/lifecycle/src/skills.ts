/** @agentd/lifecycle/skills: the rules of the Skills extension (`skill://` resources and methods). */
export {
  DIRECTORY_MIME_TYPE,
  isTraversingSkillUri,
  SKILL_AUTHORITY_PATTERN,
  SKILL_DESCRIPTION_MAX,
  SKILL_LIMITS,
  SKILL_MANIFEST,
  SKILL_MANIFEST_MIME_TYPE,
  SKILL_NAME_PATTERN,
  SKILL_SCHEME,
  SKILLS_EXTENSION,
  SkillErrorText,
  SkillsMethod,
  skillManifestUri,
  skillsInvalidParams,
} from './skills-extension.js';
