/**
 * The parts of a Pulumi package schema this package reads or writes: the native resource's schema
 * (nativeSchema.ts) and the component host's derived one (plugin/packageSchema.ts) both build on them.
 */
export interface PropertySpec {
  type?: string;
  $ref?: string;
  items?: PropertySpec;
  additionalProperties?: PropertySpec;
  description?: string;
  plain?: boolean;
  secret?: boolean;
}

export interface ResourceSpec {
  isComponent?: boolean;
  description?: string;
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
  properties: Record<string, PropertySpec>;
  required: string[];
  /** What the engine's List of the type takes; a type without it is not listed. */
  listInputs?: { properties: Record<string, PropertySpec> };
}

export interface PackageSchema {
  name: string;
  version?: string;
  description?: string;
  resources: Record<string, ResourceSpec>;
  types: Record<string, { type: string; enum?: Array<{ name: string; value: string | number; description?: string }> }>;
  [key: string]: unknown;
}
